// How a connection settles its MCP protocol era from the server's `protocolVersion` setting.
import {
  SdkError,
  SdkErrorCode,
  type VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { McpTransportKind } from './mcp-client.js';
import type { McpServerConfig } from './mcp-server-config.js';

/** A connection's protocol era: `legacy` (2025, `initialize`) or `modern` (2026-07-28 and later). */
export type McpEra = 'legacy' | 'modern';

/** The revision of the stateless era this client speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * How long a stdio server may take to answer the era probe before it is taken for a 2025-era
 * server that ignores unknown requests (and is sent `initialize`), in ms.
 */
export const STDIO_PROBE_TIMEOUT_MS = 10_000;

/**
 * Rounds of `input_required` one call may go through before it fails: a server that keeps
 * asking (or echoes its `requestState` forever) is cut off here.
 */
export const INPUT_REQUIRED_MAX_ROUNDS = 8;

/**
 * The SDK's version negotiation for `config` over `kind`: `auto` probes with `server/discover`
 * (on stdio for at most {@link STDIO_PROBE_TIMEOUT_MS}), `2025-11-25` shakes hands at once,
 * `2026-07-28` is pinned. On stdio the probe takes at most half of `timeoutMs`. HTTP+SSE is a 2025-era transport: it never probes, and a server pinned
 * to 2026-07-28 cannot be reached over it. `force` overrides the setting.
 */
export function negotiationFor(
  config: McpServerConfig,
  kind: McpTransportKind,
  timeoutMs: number,
  force?: 'legacy',
): VersionNegotiationOptions {
  const wanted = config.protocolVersion ?? 'auto';
  if (kind === 'sse' && wanted === MODERN_PROTOCOL_VERSION) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `MCP server "${config.name}" is set to protocol ${MODERN_PROTOCOL_VERSION}, which the HTTP+SSE transport cannot carry.`,
      {
        retryable: false,
        field: 'protocolVersion',
        hint: 'Use the "http" (Streamable HTTP) transport for this server, or set protocolVersion to "auto".',
        details: { server: config.name, reason: 'protocol_transport_mismatch' },
      },
    );
  }
  if (force === 'legacy' || kind === 'sse' || wanted === '2025-11-25') return { mode: 'legacy' };
  if (wanted === MODERN_PROTOCOL_VERSION) return { mode: { pin: MODERN_PROTOCOL_VERSION } };
  // A silent probe leaves half of the attempt's time to the handshake that follows it.
  return kind === 'stdio'
    ? { mode: 'auto', probe: { timeoutMs: Math.min(timeoutMs / 2, STDIO_PROBE_TIMEOUT_MS) } }
    : { mode: 'auto' };
}

/**
 * Whether a failed stdio connection was a 2025-era server that exited on the era probe (some
 * SDKs end the process on any request before `initialize`): worth one more start, straight to
 * the handshake. Not after garbage on stdout, a caller's abort, or a pinned protocol.
 */
export function probeKilledServer(
  error: unknown,
  config: McpServerConfig,
  garbage: string | undefined,
  signal: AbortSignal | undefined,
): boolean {
  if (garbage !== undefined || signal?.aborted) return false;
  if ((config.protocolVersion ?? 'auto') !== 'auto') return false;
  const cause = error instanceof ToolError ? error.cause : error;
  return (
    cause instanceof SdkError &&
    cause.code === SdkErrorCode.EraNegotiationFailed &&
    /connection closed/i.test(cause.message)
  );
}
