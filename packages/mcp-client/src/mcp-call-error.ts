import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import { cleanUntrustedLine, defuseMarkers } from '@toolsys/core-tool-registry/text';
import { stripTerminalControls } from './terminal-text.js';

/** What was being done when an MCP request failed, for the message. */
export interface McpFailureContext {
  /** The configured server name. */
  readonly server: string;
  /** The operation, e.g. `tools/call "echo"`. */
  readonly operation: string;
  /** The time limit that applied, in ms. */
  readonly timeoutMs?: number;
  /** The first line the server wrote to stdout that was not JSON-RPC, if any. */
  readonly garbage?: string;
}

const MAX_REMOTE_MESSAGE = 500;

/**
 * Turns an error from the MCP SDK into a {@link ToolError} whose code policies can branch on:
 * a timeout is TIMEOUT (a cancellation was already sent), a dropped connection is
 * EXECUTION_FAILED, an argument error reported by the server is INVALID_ARGUMENT.
 */
export function toMcpToolError(error: unknown, context: McpFailureContext): ToolError {
  const { server, operation } = context;
  if (error instanceof ToolError) return error;
  // Garbage on stdout explains a handshake that never completes, a timeout or a dropped
  // connection; a proper error answer from the server speaks for itself.
  if (context.garbage !== undefined && !(error instanceof ProtocolError)) {
    return new ToolError(
      ToolErrorCode.EXECUTION_FAILED,
      `MCP server "${server}" wrote output that is not MCP JSON-RPC to stdout: ${quote(context.garbage)}.`,
      {
        retryable: false,
        hint: 'The server is misconfigured (stdout must carry only JSON-RPC; logs belong on stderr). Fix its command or use another server.',
        details: { server, reason: 'invalid_stdout' },
        cause: error,
      },
    );
  }
  if (error instanceof SdkError) {
    const sdkFailure = fromSdkError(error, context);
    if (sdkFailure) return sdkFailure;
  }
  if (error instanceof ProtocolError) {
    const remote = clip(error.message.replace(/^MCP error -?\d+: /, ''));
    switch (error.code) {
      case ProtocolErrorCode.InvalidParams:
        return new ToolError(
          ToolErrorCode.INVALID_ARGUMENT,
          `MCP server "${server}" rejected the arguments of ${operation}: ${remote}`,
          {
            field: 'arguments',
            hint: 'Fix the arguments to match the tool inputSchema shown by mcp_list and retry.',
            details: { server, reason: 'invalid_params' },
            cause: error,
          },
        );
      case ProtocolErrorCode.MethodNotFound:
        return new ToolError(
          ToolErrorCode.UNSUPPORTED,
          `MCP server "${server}" does not support ${operation}: ${remote}`,
          { details: { server, reason: 'method_not_found' }, cause: error },
        );
      case ProtocolErrorCode.MissingRequiredClientCapability:
        return inputNotSupported(error, context, remote);
      default:
        return new ToolError(
          ToolErrorCode.EXECUTION_FAILED,
          `MCP server "${server}" answered ${operation} with an error: ${remote}`,
          { details: { server, reason: 'remote_error', mcpCode: error.code }, cause: error },
        );
    }
  }
  const spawnFailure = notStarted(error);
  if (spawnFailure) {
    return new ToolError(
      ToolErrorCode.EXECUTION_FAILED,
      `MCP server "${server}" could not be started: ${spawnFailure}.`,
      {
        retryable: false,
        hint: `Install the program, or fix the server's command in the configuration; toolsys doctor shows the servers and their state.`,
        details: { server, reason: 'spawn_failed' },
        cause: error,
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(
    ToolErrorCode.EXECUTION_FAILED,
    `MCP server "${server}" failed during ${operation}: ${clip(message)}`,
    {
      hint: 'Check that the server is running and reachable; mcp_list shows its status.',
      details: { server, reason: 'transport_error' },
      cause: error,
    },
  );
}

/** The SDK's own failures (a time limit, a closed connection, the protocol era, the rounds of a call). */
function fromSdkError(error: SdkError, context: McpFailureContext): ToolError | undefined {
  const { server, operation } = context;
  const local = clip(error.message);
  switch (error.code) {
    case SdkErrorCode.RequestTimeout:
      return new ToolError(
        ToolErrorCode.TIMEOUT,
        `MCP server "${server}" did not answer ${operation} within ${context.timeoutMs ?? '?'} ms; the request was cancelled.`,
        {
          retryable: false,
          hint: 'The outcome on the server is unknown. Check its state before repeating the call, or retry with a larger timeoutMs.',
          details: { server, reason: 'timeout' },
          cause: error,
        },
      );
    case SdkErrorCode.ConnectionClosed:
      return new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `MCP server "${server}" closed the connection during ${operation}.`,
        {
          hint: 'The server stopped or crashed; the next call reconnects. Check the outcome before repeating a call that changes state.',
          details: { server, reason: 'connection_closed' },
          cause: error,
        },
      );
    case SdkErrorCode.EraNegotiationFailed:
      return new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `MCP server "${server}" could not agree on a protocol version: ${local}`,
        {
          retryable: false,
          hint: 'Check the server\'s protocolVersion setting: "auto" speaks both 2025-11-25 and 2026-07-28; a pinned version fails against a server that does not offer it.',
          details: { server, reason: 'protocol_negotiation' },
          cause: error,
        },
      );
    case SdkErrorCode.InputRequiredRoundsExceeded:
      return new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `MCP server "${server}" kept asking for more input during ${operation}; the call was stopped after ${roundsOf(error)} rounds.`,
        {
          retryable: false,
          hint: "The server did not finish the call. Do not repeat it unchanged; check the tool's arguments or use another tool.",
          details: { server, reason: 'input_rounds_exceeded' },
          cause: error,
        },
      );
    case SdkErrorCode.CapabilityNotSupported:
      // What a server embedded in an input_required result that no handler here answers.
      return inputNotSupported(error, context, local);
    case SdkErrorCode.InvalidResult:
    case SdkErrorCode.UnsupportedResultType:
    case SdkErrorCode.ListPaginationExceeded:
      return new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `MCP server "${server}" answered ${operation} with something that is not a valid MCP result: ${local}`,
        {
          retryable: false,
          hint: 'The server broke the protocol; the call may or may not have taken effect on it.',
          details: { server, reason: 'invalid_result' },
          cause: error,
        },
      );
    default:
      return undefined;
  }
}

/** A server wanted input (a form, sampling, roots) that this client does not give. */
function inputNotSupported(error: Error, context: McpFailureContext, detail: string): ToolError {
  const { server, operation } = context;
  const code = (error as { code?: unknown }).code;
  return new ToolError(
    ToolErrorCode.UNSUPPORTED,
    `MCP server "${server}" needs input this client cannot give (a form, a sampling request or roots) for ${operation}: ${detail}`,
    {
      retryable: false,
      hint: 'Use a tool of this server that does not ask the user for input, or call it from an MCP client that can answer such requests.',
      details: {
        server,
        reason: 'input_not_supported',
        ...(typeof code === 'number' ? { mcpCode: code } : {}),
      },
      cause: error,
    },
  );
}

function roundsOf(error: SdkError): string {
  const rounds = (error.data as { rounds?: unknown } | undefined)?.rounds;
  return typeof rounds === 'number' && Number.isSafeInteger(rounds) ? String(rounds) : 'several';
}

/** Why a stdio server's process did not start (its command missing or not runnable), if so. */
function notStarted(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  if (typeof syscall !== 'string' || !syscall.startsWith('spawn')) return undefined;
  const command = quote(path ?? '');
  switch (code) {
    case 'ENOENT':
      return `its command ${command} was not found (not on PATH, or its working directory is missing)`;
    case 'EACCES':
      return `its command ${command} is not executable`;
    default:
      return `starting ${command} failed (${code ?? 'unknown error'})`;
  }
}

/**
 * Remote text in one of our messages: terminal escapes removed, then one clean line (invisible
 * characters removed, line breaks shown as escapes, forged markers defused), bounded in length.
 */
function clip(raw: string): string {
  return defuseMarkers(cleanUntrustedLine(stripTerminalControls(raw), MAX_REMOTE_MESSAGE));
}

function quote(raw: string): string {
  return JSON.stringify(defuseMarkers(cleanUntrustedLine(stripTerminalControls(raw), 120)));
}
