import { relative, sep } from 'node:path';
import {
  defineTool,
  failureResult,
  foreignReplicaFailure,
  type HandleOwner,
  handleArgument,
  handleOwnerOf,
  isToolError,
  type ToolContext,
  type ToolDefinition,
  ToolErrorCode,
  type ToolFailure,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import {
  cleanUntrustedLine,
  escapeInvisible,
  markUntrusted,
  untrustedMarkers,
} from '@toolsys/core-tool-registry/text';
import { resolveWorkspacePath } from '@toolsys/platform';
import type { TerminalManager } from '../terminal-manager.js';
import type { ScreenSnapshot, TerminalSession } from '../terminal-session.js';

/**
 * The `sessionId` argument of the tools that act on an open session: a handle, mirrored by
 * 2026-07-28 clients into the `Mcp-Param-Handle` header a load balancer routes by.
 */
export const sessionIdField = handleArgument('Session id.');

/** Longest a tool waits inside one call; the tools' run policies allow 15 s more. */
export const MAX_WAIT_MS = 110_000;
/** Run policy time limit of the tools that wait. */
export const WAITING_TOOL_TIMEOUT_MS = MAX_WAIT_MS + 15_000;

/**
 * The failure for a session id the caller did not open: the same answer for an id another
 * principal or client session opened as for one that never existed (no oracle), listing only the
 * caller's own sessions. An id minted by another replica says so instead (whoever asks), since
 * this replica cannot reach it.
 */
export function unknownSession(
  manager: TerminalManager,
  sessionId: string,
  owner: HandleOwner,
): ToolFailure {
  const elsewhere = foreignReplicaFailure({
    handle: sessionId,
    field: 'sessionId',
    what: 'terminal session',
    replicaName: manager.replicaName,
    next: 'Start a new session with terminal.create (or call terminal.run without sessionId).',
  });
  if (elsewhere !== undefined) return elsewhere;
  const open = manager.listOwned(owner).map((session) => session.id);
  return failureResult(
    ToolErrorCode.NOT_FOUND,
    `sessionId: no open terminal session "${sessionId}"`,
    {
      field: 'sessionId',
      hint:
        open.length > 0
          ? `Open sessions: ${open.join(', ')}. Use one of them, or start one with terminal.create.`
          : 'No session is open. Start one with terminal.create (or call terminal.run without sessionId).',
    },
  );
}

/**
 * Declares a tool that acts on one open session: the `sessionId` argument is looked up once here
 * among the sessions the caller opened (same principal, same client session), and an unknown,
 * closed or foreign id gives NOT_FOUND naming the field.
 */
export function defineSessionTool<TArgs extends { sessionId: string }>(
  manager: TerminalManager,
  definition: Omit<ToolDefinition<TArgs>, 'execute'> & {
    execute(
      session: TerminalSession,
      args: TArgs,
      context: ToolContext,
    ): Promise<ToolReturn> | ToolReturn;
  },
): ToolDefinition<TArgs> {
  return defineTool({
    ...definition,
    execute(args: TArgs, context: ToolContext) {
      const session = manager.getOwned(args.sessionId, handleOwnerOf(context));
      if (session === undefined || session.isClosed) {
        return unknownSession(manager, args.sessionId, handleOwnerOf(context));
      }
      return definition.execute(session, args, context);
    },
  });
}

/** What {@link confirmUnsandboxedInput} asks about. */
export interface InputConfirmation {
  /** Exactly what is about to be sent: the command line, or the text and key names. */
  readonly action: string;
  /** Where it goes, for the question: `terminal session t1 (bash)`, `a new terminal session`. */
  readonly target: string;
  /** The argument that carries the input (`command`, `text`). */
  readonly field: string;
  /** Whether this deployment can open sandboxed sessions, for the next step after a denial. */
  readonly sandboxOffered: boolean;
}

/**
 * Asks the user before input reaches a session outside the OS sandbox: once per input, whatever
 * was answered for earlier inputs (an "allow for the session" answer covers only this one, as
 * with shell_execute's command lines). Undefined when the user allowed it; PERMISSION_DENIED
 * naming the field otherwise, also when nobody can answer.
 */
export async function confirmUnsandboxedInput(
  context: ToolContext,
  request: InputConfirmation,
): Promise<ToolFailure | undefined> {
  const decision = await context.confirm({
    action: request.action,
    risk: 'HIGH',
    reason: `Send this to ${request.target}? It runs outside the sandbox, with your permissions.`,
  });
  if (decision !== 'deny') return undefined;
  return failureResult(
    ToolErrorCode.PERMISSION_DENIED,
    `${request.field}: not sent to ${request.target}: the user did not allow it`,
    {
      field: request.field,
      hint: request.sandboxOffered
        ? 'Change approach: ask the user what to do, or work in a sandboxed session (terminal.create {"sandbox": true}: workspace read-only, no network), whose input needs no confirmation.'
        : 'Change approach: ask the user what to do, or use a read-only tool.',
      details: { permission: 'confirm' },
    },
  );
}

/** Resolves a `cwd` argument inside the workspace; a path outside is INVALID_ARGUMENT on `cwd`. */
export async function resolveSessionDirectory(
  workspaceRoot: string,
  cwd: string,
): Promise<{ absolute: string; relative: string } | ToolFailure> {
  try {
    const resolved = await resolveWorkspacePath(workspaceRoot, cwd, { field: 'cwd' });
    if (!resolved.exists) {
      return failureResult(
        ToolErrorCode.NOT_FOUND,
        `cwd: "${cwd}" does not exist in the workspace`,
        {
          field: 'cwd',
          hint: 'Use an existing folder relative to the workspace root, or omit cwd for the root.',
        },
      );
    }
    return { absolute: resolved.absolute, relative: resolved.relative };
  } catch (error: unknown) {
    if (isToolError(error)) {
      return failureResult(
        error.code === ToolErrorCode.PERMISSION_DENIED
          ? ToolErrorCode.INVALID_ARGUMENT
          : error.code,
        error.message,
        {
          field: 'cwd',
          hint: 'Sessions start inside the workspace: give a folder relative to the workspace root, or omit cwd.',
        },
      );
    }
    throw error;
  }
}

/**
 * A directory shown relative to the workspace (`.` for the root), or as-is when outside it, as
 * one line (a program can name a folder with line breaks or bidi controls).
 */
export function showDirectory(workspaceRoot: string, absolute: string | undefined): string | null {
  if (absolute === undefined) return null;
  const path = relative(workspaceRoot, absolute);
  if (path === '') return '.';
  if (path.startsWith('..') || path.startsWith(sep)) return showOutputLine(absolute);
  return showOutputLine(path.split(sep).join('/'));
}

/** Keeps the head and the tail of a text within `maxChars`, saying how much was left out. */
export function clipMiddle(
  text: string,
  maxChars: number,
): { text: string; truncated: boolean; omittedChars: number } {
  if (text.length <= maxChars) return { text, truncated: false, omittedChars: 0 };
  const head = Math.ceil(maxChars / 2);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n… [${omitted} characters left out] …\n${text.slice(text.length - tail)}`,
    truncated: true,
    omittedChars: omitted,
  };
}

/** The length of `data` cut back so that it does not end inside a UTF-8 sequence. */
export function utf8SafeLength(data: Buffer): number {
  let length = data.length;
  // Look back at most 3 bytes for the start of a sequence that would be incomplete.
  for (let back = 1; back <= Math.min(3, data.length); back += 1) {
    const byte = data[data.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (needed > back) length = data.length - back;
    break;
  }
  return length;
}

/** Formats milliseconds for people: `850 ms`, `2.4 s`. */
export function formatMs(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

const TERMINAL_MARKERS = untrustedMarkers('terminal');

/**
 * Program output as the model is shown it: control, bidi and invisible characters (what escape
 * sequences leave after plain-text conversion, or all of them in raw mode) as visible escapes
 * (`\u202e`, `\x1b`), line breaks and tabs kept. Nothing is removed, so a file read through the
 * terminal is shown whole (comments included) and a hidden character is seen, not obeyed.
 */
export function showOutput(text: string): string {
  return escapeInvisible(text, { keepNewlines: true });
}

/** One line a program controls (a window title, a folder name, an os-release name). */
export function showOutputLine(text: string): string {
  return cleanUntrustedLine(text, 300);
}

/**
 * A block of program output (already {@link showOutput}) for a result's text: the terminal
 * notice line, then the text between `<untrusted-terminal-content>` markers it cannot forge.
 */
export function outputBlock(text: string): string {
  return `${TERMINAL_MARKERS.notice}\n${markUntrusted(text, 'terminal')}`;
}

/** A screen snapshot as the model is shown it: rows and scrollback through {@link showOutput}, the title as one line. */
export function shownSnapshot(snapshot: ScreenSnapshot): ScreenSnapshot {
  return {
    ...snapshot,
    lines: snapshot.lines.map(showOutput),
    title: showOutputLine(snapshot.title),
    ...(snapshot.scrollback === undefined
      ? {}
      : { scrollback: snapshot.scrollback.map(showOutput) }),
  };
}
