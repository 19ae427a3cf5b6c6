import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  type ToolContext,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { classifyCommand, LINEAR_REGEX_LIMITS } from '@toolsys/platform';
import { z } from 'zod';
import { PATTERN_OVERLAP_BYTES, PatternScanner } from '../output-pattern.js';
import { encodeKey, KEY_NAMES_HELP, toPlainText } from '../terminal-keys.js';
import type { TerminalManager } from '../terminal-manager.js';
import type { SessionState, TerminalSession } from '../terminal-session.js';
import { openSession, sandboxArgument } from './sessions.js';
import {
  clipMiddle,
  confirmUnsandboxedInput,
  defineSessionTool,
  formatMs,
  MAX_WAIT_MS,
  outputBlock,
  shownSnapshot,
  showOutput,
  showOutputLine,
  unknownSession,
  utf8SafeLength,
  WAITING_TOOL_TIMEOUT_MS,
} from './tool-support.js';

/** Options for {@link createIoTools}. */
export interface IoToolsOptions {
  /** The sessions the tools act on. */
  readonly manager: TerminalManager;
  /** Quiet time after keystrokes before terminal.write returns the screen. Default 300 ms. */
  readonly settleMs?: number;
}

const sessionId = z
  .string()
  .min(1)
  .max(64)
  .describe(
    'Id of an open session, from terminal.create or terminal.workspaces (e.g. "t-0c3f9a2b7d41e8a5b6c2").',
  );

const PROGRESS_EVERY_MS = 1_000;
/**
 * Most characters of output one `terminal.observe` "raw" call shows: the text appears in the
 * result's text and in its data, together within the 200,000 characters one result holds.
 */
const MAX_RAW_CHARS = 90_000;
/** The smallest read a "raw" call makes smaller to fit {@link MAX_RAW_CHARS}. */
const MIN_RAW_BYTES = 4_096;
const QUIET_FOR_PLAIN_SHELL_MS = 250;

/** `terminal.run`, `terminal.write`, `terminal.observe`, `terminal.snapshot` and `terminal.wait`. */
export function createIoTools(options: IoToolsOptions): AnyToolDefinition[] {
  const settleMs = options.settleMs ?? 300;
  return [
    runTool(options.manager),
    writeTool(options.manager, settleMs),
    observeTool(options.manager),
    snapshotTool(options.manager),
    waitTool(options.manager),
  ];
}

/** Emits a progress event about once a second while a wait runs. */
function progressTicker(
  context: ToolContext,
  total: number,
  what: string,
): (elapsed: number) => void {
  let last = 0;
  return (elapsed) => {
    if (elapsed - last < PROGRESS_EVERY_MS) return;
    last = elapsed;
    context.emit({
      type: 'progress',
      progress: Math.min(elapsed, total),
      total,
      message: `${what} (${formatMs(elapsed)})`,
    });
  };
}

function runTool(manager: TerminalManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.run',
    description:
      'Runs one command line in a terminal session (a real PTY) and returns when it ends, with its exit code, duration and output (head and tail, with sizes). If it is still running when waitMs runs out, it says so and returns a cursor: follow it with terminal.wait or terminal.observe, answer prompts with terminal.write, stop it with terminal.signal. Without sessionId a new session is made for the call and closed when the call returns (a command still running then is stopped): for long commands open a session with terminal.create first. Refuses when the session is already busy. In a session outside the OS sandbox every command line asks the user first; in a sandboxed one it runs at once. Output of stdout and stderr arrives interleaved as on a screen. For keystrokes in an interactive program use terminal.write instead.',
    inputSchema: ToolSchema.object({
      command: z
        .string()
        .min(1)
        .max(100_000)
        .describe('The command line, as typed at the shell prompt.'),
      sessionId: sessionId
        .optional()
        .describe('Session to run in. Default: a new session for this call.'),
      waitMs: z
        .number()
        .int()
        .min(0)
        .max(MAX_WAIT_MS)
        .default(30_000)
        .describe(`How long to wait for the command to end (0-${MAX_WAIT_MS} ms). Default 30000.`),
      sandbox: sandboxArgument(manager).describe(
        `Only for the session made for this call (without sessionId): run it in the OS sandbox (workspace read-only, /tmp writable, no network), where the command runs without asking the user. ${manager.sandboxMode === 'required' ? 'Default true: every session here runs sandboxed.' : 'Default false.'} A named session keeps how it was opened.`,
      ),
      maxOutputChars: z
        .number()
        .int()
        .min(200)
        .max(200_000)
        .default(16_000)
        .describe('Most characters of output returned (head and tail kept). Default 16000.'),
    }),
    outputSchema: ToolSchema.object({
      sessionId: z.string(),
      completed: z.boolean(),
      exitCode: z.number().nullable(),
      durationMs: z.number(),
      output: z.string(),
      outputBytes: z.number(),
      droppedBytes: z.number(),
      truncated: z.boolean(),
      state: z.string(),
      cursor: z.number(),
      sessionClosed: z.boolean(),
    }),
    metadata: {
      category: 'terminal',
      risk: 'HIGH',
      tags: ['pty', 'process'],
      annotations: { ...ToolHints.destructive, openWorldHint: true },
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: WAITING_TOOL_TIMEOUT_MS },
    async execute(args, context) {
      const verdict = await classifyCommand(args.command, { workspaceRoot: manager.workspaceRoot });
      if (verdict.kind === 'deny') {
        return failureResult(
          ToolErrorCode.PERMISSION_DENIED,
          `command refused: ${verdict.reason}`,
          {
            field: 'command',
            hint: 'This command is never run here. Change approach; do not retry it or a variant of it.',
          },
        );
      }
      const confirmation = {
        action: args.command,
        field: 'command',
        sandboxOffered: manager.sandboxMode !== 'off',
      };
      let session: TerminalSession;
      let ownSession = false;
      if (args.sessionId === undefined) {
        // Asked before a shell is started for nothing.
        if (!args.sandbox) {
          const denied = await confirmUnsandboxedInput(context, {
            ...confirmation,
            target: 'a new terminal session',
          });
          if (denied) return denied;
        }
        const opened = await openSession(manager, {
          cwd: '.',
          cols: 200,
          rows: 50,
          backend: 'local',
          sandbox: args.sandbox,
          owner: context.sessionId,
        });
        if ('ok' in opened) return opened;
        session = opened;
        ownSession = true;
      } else {
        const found = manager.getOwned(args.sessionId, context.sessionId);
        if (found === undefined || found.isClosed) {
          return unknownSession(manager, args.sessionId, context.sessionId);
        }
        session = found;
      }
      const before = await session.state();
      if (before !== 'idle') {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `session ${session.id} is ${before === 'exited' ? 'exited' : `busy (${before})`}; the command was not sent`,
          {
            field: 'sessionId',
            retryable: false,
            hint:
              before === 'exited'
                ? 'Start a new session with terminal.create, or omit sessionId.'
                : `Wait for the running command with terminal.wait {"sessionId": "${session.id}", "for": "command_end"}, answer it with terminal.write, stop it with terminal.signal, or run in another session.`,
          },
        );
      }
      if (!ownSession && !session.sandboxed) {
        const denied = await confirmUnsandboxedInput(context, {
          ...confirmation,
          target: `terminal session ${session.id} (${session.shellName})`,
        });
        if (denied) return denied;
        // The user may have taken a while: the command goes only to a shell that is still waiting.
        const now = await session.state();
        if (now !== 'idle') {
          return failureResult(
            ToolErrorCode.EXECUTION_FAILED,
            `session ${session.id} became ${now === 'exited' ? 'exited' : `busy (${now})`} while the user was asked; the command was not sent`,
            {
              field: 'sessionId',
              retryable: false,
              hint: `Check it with terminal.observe {"sessionId": "${session.id}", "mode": "state"}, then run the command again.`,
            },
          );
        }
      }
      const started = Date.now();
      const startCursor = session.outputEnd;
      const startSequence = session.lastEventSequence;
      const promptsBefore = session.prompts;
      // A multi-line command is sent as one group so that it ends with one prompt.
      const line = args.command.includes('\n') ? `{\n${args.command}\n}` : args.command;
      session.write(`${line}\r`);
      session.noteCommandSent();
      const outcome = await session.waitFor(
        async () => {
          if (session.integration !== 'none') return session.prompts > promptsBefore;
          return (
            Date.now() - session.lastOutputAt >= QUIET_FOR_PLAIN_SHELL_MS &&
            Date.now() - started >= QUIET_FOR_PLAIN_SHELL_MS &&
            (await session.state()) === 'idle'
          );
        },
        {
          timeoutMs: args.waitMs,
          signal: context.signal,
          onTick: progressTicker(
            context,
            args.waitMs,
            `running "${clipMiddle(args.command, 60).text}"`,
          ),
        },
      );
      await session.settled();
      const durationMs = Date.now() - started;
      const events = session.eventsAfter(startSequence);
      const startEvent = events.find((event) => event.kind === 'command_start');
      const endEvent = events.find(
        (event) => event.kind === 'command_end' || event.kind === 'exit',
      );
      const completed = outcome === 'matched' || outcome === 'exited';
      const from = startEvent?.offset ?? startCursor;
      const to = completed && endEvent ? endEvent.offset : session.outputEnd;
      const read = session.read(from, Math.max(0, to - from));
      let text = toPlainText(read.data.toString('utf8'));
      if (startEvent === undefined) text = dropEchoedCommand(text, args.command);
      const clipped = clipMiddle(showOutput(text), args.maxOutputChars);
      const exitCode = completed
        ? (endEvent?.exitCode ?? (session.exit ? session.exit.exitCode : null))
        : null;
      const state = await session.state();
      let sessionClosed = false;
      // A session made for one call never outlives it: a persistent session is opened only by
      // terminal.create, which passes the risk gate (permissions.MEDIUM) like any MEDIUM tool.
      if (ownSession) {
        await manager.close(session.id);
        sessionClosed = true;
      }
      const data = {
        sessionId: session.id,
        completed,
        exitCode,
        durationMs,
        output: clipped.text,
        outputBytes: to - from,
        droppedBytes: read.dropped,
        truncated: clipped.truncated || read.dropped > 0,
        state: sessionClosed ? 'exited' : state,
        cursor: session.outputEnd,
        sessionClosed,
      };
      const sizes = `${data.outputBytes} bytes of output${read.dropped > 0 ? `, the first ${read.dropped} no longer held` : ''}${clipped.truncated ? `, ${clipped.omittedChars} characters left out in the middle` : ''}`;
      if (outcome === 'aborted') {
        return failureResult(
          ToolErrorCode.TIMEOUT,
          `the call was cancelled while "${args.command}" ran`,
          {
            retryable: false,
            hint: sessionClosed
              ? 'The session made for the call was closed. Run it again with a smaller waitMs in a session from terminal.create, and follow it with terminal.wait.'
              : `It may still run in session ${session.id}: check with terminal.observe, stop it with terminal.signal.`,
            details: data,
          },
        );
      }
      if (!completed && sessionClosed) {
        return successResult(
          `Still running after ${formatMs(durationMs)}, so it was stopped: the session made for this call (${session.id}) was closed with it. Output so far (${sizes}):\n${outputBlock(clipped.text)}\nNext: for a command that takes longer, open a session with terminal.create, run it there with terminal.run {"sessionId": …, "command": …} and follow it with terminal.wait; or raise waitMs (at most ${MAX_WAIT_MS}).`,
          { data },
        );
      }
      if (!completed) {
        return successResult(
          `Still running after ${formatMs(durationMs)} in session ${session.id} (state ${state}). Output so far (${sizes}):\n${outputBlock(clipped.text)}\nNext: terminal.wait {"sessionId": "${session.id}", "for": "command_end"} to wait more, terminal.observe {"sessionId": "${session.id}", "mode": "raw", "cursor": ${data.cursor}} for new output, terminal.write to answer a prompt, or terminal.signal to stop it.`,
          { data },
        );
      }
      const exitText =
        exitCode === null
          ? session.integration !== 'none'
            ? 'exit code unknown'
            : `exit code unknown (${session.shellName} has no shell integration)`
          : `exit code ${exitCode}`;
      const closedText = sessionClosed
        ? ` The session made for this call (${session.id}) was closed.`
        : session.exit
          ? ` The shell of session ${session.id} exited.`
          : '';
      return successResult(
        `${exitText} after ${formatMs(durationMs)} (${sizes}).${closedText}\n${outputBlock(clipped.text)}`,
        { data },
      );
    },
  });
}

/** Keystrokes as the user is asked about them: the text quoted (control characters escaped), then the key names. */
export function describeKeystrokes(
  text: string | undefined,
  keys: readonly string[] | undefined,
): string {
  const parts: string[] = [];
  if (text !== undefined && text !== '') parts.push(JSON.stringify(text));
  if (keys !== undefined && keys.length > 0) parts.push(`keys ${keys.join(' ')}`);
  return parts.join(', then ');
}

/** Without a start mark the echoed command line heads the output; drop its first occurrence. */
function dropEchoedCommand(text: string, command: string): string {
  const firstLine = command.split('\n')[0] ?? '';
  const index = text.indexOf(firstLine);
  if (index < 0) return text;
  const newline = text.indexOf('\n', index + firstLine.length);
  return newline < 0 ? '' : text.slice(newline + 1);
}

function writeTool(manager: TerminalManager, defaultSettleMs: number): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.write',
    description: `Types into a session: literal text, then named keys, as a user at the keyboard would. Use it to answer prompts (passwords, read -p, y/n), drive full-screen programs (vim, less, top) and REPLs, or interrupt with C-c. Returns the settled screen (after output has been quiet for settleMs) and the state, so you see what the keystrokes did. Keys: ${KEY_NAMES_HELP}. Text is sent as-is: add the key Enter to submit a line. In a session outside the OS sandbox every call asks the user first, so send a whole answer in one call; in a sandboxed one it is typed at once. To run a shell command and get its exit code, use terminal.run.`,
    inputSchema: ToolSchema.object({
      sessionId,
      text: z.string().max(100_000).optional().describe('Literal text to type (sent first).'),
      keys: z
        .array(z.string().min(1).max(32))
        .max(64)
        .optional()
        .describe(
          'Named keys sent after the text, in order, e.g. ["Enter"], ["C-c"], ["Up", "Enter"]. Plain characters go in text.',
        ),
      settleMs: z
        .number()
        .int()
        .min(0)
        .max(5_000)
        .optional()
        .describe('Quiet time before the screen is read (0-5000 ms). Default 300.'),
    }),
    outputSchema: ToolSchema.object({
      state: z.string(),
      screen: z.array(z.string()),
      cursor: z.object({ row: z.number(), col: z.number() }),
      alternateScreen: z.boolean(),
      outputCursor: z.number(),
    }),
    metadata: {
      category: 'terminal',
      risk: 'HIGH',
      tags: ['pty', 'keyboard'],
      annotations: { ...ToolHints.destructive, openWorldHint: true },
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: 30_000 },
    async execute(session, { text, keys, settleMs }, context) {
      if ((text === undefined || text === '') && (keys === undefined || keys.length === 0)) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'text: give text, keys, or both', {
          field: 'text',
          hint: 'Send {"sessionId": "t1", "text": "yes", "keys": ["Enter"]}.',
        });
      }
      const encoded: string[] = [];
      for (const [index, key] of (keys ?? []).entries()) {
        const bytes = encodeKey(key);
        if (bytes === undefined) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `keys.${index}: "${key}" is not a key name`,
            {
              field: `keys.${index}`,
              hint: `Use one of: ${KEY_NAMES_HELP}. Put plain characters in text.`,
            },
          );
        }
        encoded.push(bytes);
      }
      if (session.exit) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `session ${session.id} has exited; nothing was typed`,
          {
            retryable: false,
            hint: 'Read its last output with terminal.observe, then start a new session with terminal.create.',
          },
        );
      }
      if (!session.sandboxed) {
        const denied = await confirmUnsandboxedInput(context, {
          action: describeKeystrokes(text, keys),
          target: `terminal session ${session.id} (${session.shellName})`,
          field: text === undefined || text === '' ? 'keys' : 'text',
          sandboxOffered: manager.sandboxMode !== 'off',
        });
        if (denied) return denied;
        if (session.exit) {
          return failureResult(
            ToolErrorCode.EXECUTION_FAILED,
            `session ${session.id} exited while the user was asked; nothing was typed`,
            {
              retryable: false,
              hint: 'Read its last output with terminal.observe, then start a new session with terminal.create.',
            },
          );
        }
      }
      const quiet = settleMs ?? defaultSettleMs;
      const sentAt = Date.now();
      session.write(`${text ?? ''}${encoded.join('')}`);
      await session.waitFor(() => Date.now() - Math.max(session.lastOutputAt, sentAt) >= quiet, {
        timeoutMs: quiet + 3_000,
        signal: context.signal,
      });
      const snapshot = shownSnapshot(await session.snapshot());
      const state = await session.state();
      return successResult(
        `Typed into ${session.id}; state ${state}. Screen (cursor at row ${snapshot.cursor.row}, col ${snapshot.cursor.col}${snapshot.alternateScreen ? ', full-screen program' : ''}):\n${outputBlock(snapshot.lines.join('\n'))}`,
        {
          data: {
            state,
            screen: snapshot.lines,
            cursor: snapshot.cursor,
            alternateScreen: snapshot.alternateScreen,
            outputCursor: session.outputEnd,
          },
        },
      );
    },
  });
}

function observeTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.observe',
    description:
      'Reads a session without changing it. Modes: "state" (cheap: state, cwd, last exit code, bytes of output after your cursor), "events" (command starts and ends after an event cursor), "screen" (the visible screen as text), "raw" (output bytes after a byte cursor; never repeats or skips a byte and says how many bytes the bounded buffer dropped). Pass the returned nextCursor to the next call to read only what is new. Output stays readable after the program has ended, until terminal.close.',
    inputSchema: ToolSchema.object({
      sessionId,
      mode: z
        .enum(['state', 'events', 'screen', 'raw'])
        .default('state')
        .describe('What to read. Default "state".'),
      cursor: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          '"raw"/"state": byte offset from an earlier nextCursor (default: the oldest byte held). "events": the last event sequence seen (default 0).',
        ),
      maxBytes: z
        .number()
        .int()
        .min(1)
        .max(1_048_576)
        .default(16_384)
        .describe(
          `"raw": most bytes returned (1-1048576; one call shows at most ${MAX_RAW_CHARS.toLocaleString('en-US')} characters, then call again with nextCursor). Default 16384.`,
        ),
      plain: z
        .boolean()
        .default(true)
        .describe('"raw": remove escape sequences and carriage-return overwrites. Default true.'),
    }),
    metadata: { category: 'terminal', risk: 'LOW', tags: ['pty'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute(session, { mode, cursor, maxBytes, plain }) {
      switch (mode) {
        case 'state': {
          const state = await session.state();
          const cwd = await session.currentDirectory();
          const pending = cursor === undefined ? null : Math.max(0, session.outputEnd - cursor);
          const data = {
            state,
            cwd:
              cwd === undefined
                ? null
                : showOutputLine(relativeOrAbsolute(manager.workspaceRoot, cwd)),
            lastExitCode: session.lastExitCode,
            bytesPending: pending,
            nextCursor: session.outputEnd,
            lastEventSequence: session.lastEventSequence,
          };
          return successResult(
            `Session ${session.id}: ${state}${describeState(state)}; last exit code ${session.lastExitCode ?? '-'}; cwd ${data.cwd ?? '?'}${pending === null ? '' : `; ${pending} bytes after your cursor`}; output cursor now ${session.outputEnd}.`,
            { data },
          );
        }
        case 'events': {
          const after = cursor ?? 0;
          const events = session.eventsAfter(after);
          const data = { events, nextCursor: session.lastEventSequence };
          if (events.length === 0) {
            return successResult(
              `No command events after ${after} in ${session.id}${session.integration === 'none' ? ` (${session.shellName} has no shell integration: only the exit is reported)` : ''}.`,
              { data },
            );
          }
          const lines = events.map(
            (event) =>
              `#${event.sequence} ${event.kind}${event.exitCode === null ? '' : ` exit ${event.exitCode}`} at ${new Date(event.at).toISOString()} (output offset ${event.offset})`,
          );
          return successResult(
            `${events.length} event(s) in ${session.id}:\n${lines.join('\n')}\nnextCursor ${data.nextCursor}`,
            { data },
          );
        }
        case 'screen': {
          const snapshot = shownSnapshot(await session.snapshot());
          return successResult(
            `Screen of ${session.id} (${snapshot.cols}x${snapshot.rows}, cursor row ${snapshot.cursor.row} col ${snapshot.cursor.col}):\n${outputBlock(snapshot.lines.join('\n'))}`,
            { data: { ...snapshot } },
          );
        }
        case 'raw': {
          // The text is shown twice (the result's text and its data) within one result's budget:
          // a read that would show more is made smaller, and its cursor says where it ended.
          let limit = Math.min(maxBytes, MAX_RAW_CHARS);
          let read: ReturnType<typeof session.read>;
          let bytes: Buffer;
          let text: string;
          for (;;) {
            read = session.read(cursor ?? session.outputStart, limit);
            bytes = read.data.subarray(
              0,
              read.pending > 0 ? utf8SafeLength(read.data) : read.data.length,
            );
            const raw = bytes.toString('utf8');
            text = showOutput(plain ? toPlainText(raw) : raw);
            if (text.length <= MAX_RAW_CHARS || limit <= MIN_RAW_BYTES) break;
            limit = Math.max(
              MIN_RAW_BYTES,
              Math.floor((limit * MAX_RAW_CHARS) / text.length / 1.1),
            );
          }
          const length = bytes.length;
          const next = read.from + length;
          const pending = session.outputEnd - next;
          const data = {
            text,
            from: read.from,
            nextCursor: next,
            droppedBytes: read.dropped,
            pendingBytes: pending,
            exited: session.exit !== undefined,
          };
          const header = [
            `${bytes.length} bytes from offset ${read.from}`,
            read.dropped > 0
              ? `${read.dropped} bytes before it were dropped (the buffer holds the last ${session.outputEnd - session.outputStart} bytes)`
              : '',
            pending > 0
              ? `${pending} more bytes pending: call again with cursor ${next}`
              : `nextCursor ${next}`,
          ]
            .filter((part) => part !== '')
            .join('; ');
          return successResult(`${header}\n${outputBlock(text)}`, { data });
        }
      }
    },
  });
}

function relativeOrAbsolute(root: string, path: string): string {
  if (path === root) return '.';
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function describeState(state: SessionState): string {
  switch (state) {
    case 'idle':
      return ' (at the prompt)';
    case 'running':
      return ' (a command is running)';
    case 'waiting_for_input':
      return ' (a program is waiting for keyboard input: answer with terminal.write)';
    case 'exited':
      return ' (the shell has ended)';
  }
}

function snapshotTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.snapshot',
    description:
      'Returns the screen of a session as text lines, as a user would see it now: the cursor position, the window title, and whether a full-screen program (vim, less, top) has the alternate screen; optionally rows of scrollback above it. Use it to read full-screen programs and prompts; use terminal.observe "raw" for the complete output stream.',
    inputSchema: ToolSchema.object({
      sessionId,
      scrollbackLines: z
        .number()
        .int()
        .min(0)
        .max(5_000)
        .default(0)
        .describe('Also return up to this many rows above the visible screen (0-5000). Default 0.'),
    }),
    outputSchema: ToolSchema.object({
      lines: z.array(z.string()),
      cols: z.number(),
      rows: z.number(),
      cursor: z.object({ row: z.number(), col: z.number() }),
      alternateScreen: z.boolean(),
      title: z.string(),
      scrollback: z.array(z.string()).optional(),
    }),
    metadata: { category: 'terminal', risk: 'LOW', tags: ['pty'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute(session, { scrollbackLines }) {
      const snapshot = shownSnapshot(await session.snapshot({ scrollbackLines }));
      const above =
        snapshot.scrollback && snapshot.scrollback.length > 0
          ? `${snapshot.scrollback.length} rows of scrollback, then the screen after "--- screen ---"`
          : 'The screen';
      const rows = [
        ...(snapshot.scrollback && snapshot.scrollback.length > 0
          ? [...snapshot.scrollback, '--- screen ---']
          : []),
        ...snapshot.lines,
      ];
      return successResult(
        `${above} of ${session.id} (${snapshot.cols}x${snapshot.rows}, cursor row ${snapshot.cursor.row} col ${snapshot.cursor.col}${snapshot.alternateScreen ? ', alternate screen' : ''}):\n${outputBlock(`${snapshot.title ? `title: ${snapshot.title}\n` : ''}${rows.join('\n')}`)}`,
        { data: { ...snapshot } },
      );
    },
  });
}

function waitTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.wait',
    description:
      'Waits, within a time limit, until something happens in a session: "pattern" (a regular expression appears in new output), "quiet" (no output for quietMs), "command_end" (the running command ends), "state" (the session reaches a state, e.g. waiting_for_input), or "exit" (the shell ends). Sends progress while waiting and never waits past timeoutMs; when the time runs out it says so (matched false) with the state, so you can decide to wait again, type, or signal.',
    inputSchema: ToolSchema.object({
      sessionId,
      for: z
        .enum(['pattern', 'quiet', 'command_end', 'state', 'exit'])
        .describe('What to wait for.'),
      pattern: z
        .string()
        .min(1)
        .max(1_000)
        .optional()
        .describe(
          `"pattern": a regular expression matched against new plain-text output (multi-line: ^ and $ match at line ends; a match must lie within ${PATTERN_OVERLAP_BYTES} bytes of output). ${LINEAR_REGEX_LIMITS}`,
        ),
      state: z
        .enum(['idle', 'running', 'waiting_for_input', 'exited'])
        .optional()
        .describe('"state": the state to reach.'),
      cursor: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          '"pattern": output offset to search from (a nextCursor). Default: output arriving from now on.',
        ),
      quietMs: z
        .number()
        .int()
        .min(50)
        .max(60_000)
        .default(1_000)
        .describe('"quiet": how long output must stop (50-60000 ms). Default 1000.'),
      timeoutMs: z
        .number()
        .int()
        .min(0)
        .max(MAX_WAIT_MS)
        .default(30_000)
        .describe(`Longest wait (0-${MAX_WAIT_MS} ms). Default 30000.`),
    }),
    outputSchema: ToolSchema.object({
      matched: z.boolean(),
      outcome: z.string(),
      state: z.string(),
      waitedMs: z.number(),
      match: z.string().nullable(),
      nextCursor: z.number(),
      exitCode: z.number().nullable(),
    }),
    metadata: { category: 'terminal', risk: 'LOW', tags: ['pty'], annotations: ToolHints.readOnly },
    runPolicy: { ...RunPolicies.quickRead, timeoutMs: WAITING_TOOL_TIMEOUT_MS, maxRetries: 0 },
    async execute(session, args, context) {
      let scanner: PatternScanner | undefined;
      const from = args.cursor ?? session.outputEnd;
      if (args.for === 'pattern') {
        if (args.pattern === undefined) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            'pattern: required when for is "pattern"',
            {
              field: 'pattern',
              hint: 'Send {"for": "pattern", "pattern": "Done|Error"}.',
            },
          );
        }
        // Linear-time engine: a pattern from the model can never hold the process (ToolError
        // INVALID_ARGUMENT on `pattern` for what RE2 cannot run, returned by the executor).
        scanner = new PatternScanner(args.pattern, from);
      }
      if (args.for === 'state' && args.state === undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'state: required when for is "state"',
          {
            field: 'state',
            hint: 'Send {"for": "state", "state": "waiting_for_input"}.',
          },
        );
      }
      const started = Date.now();
      const startSequence = session.lastEventSequence;
      const commandWasActive = session.isCommandActive;
      let match: string | null = null;
      const predicate = async (): Promise<boolean> => {
        switch (args.for) {
          case 'pattern': {
            if (match !== null) return true;
            const found = await scanner?.scan(session);
            match = found === undefined ? null : showOutputLine(found);
            return match !== null;
          }
          case 'quiet':
            return Date.now() - Math.max(session.lastOutputAt, started) >= args.quietMs;
          case 'command_end':
            if (!commandWasActive && session.integration !== 'none') return true;
            return (
              session
                .eventsAfter(startSequence)
                .some((event) => event.kind === 'command_end' || event.kind === 'exit') ||
              (session.integration === 'none' && (await session.state()) === 'idle')
            );
          case 'state':
            return (await session.state()) === args.state;
          case 'exit':
            return session.exit !== undefined;
        }
      };
      const outcome = await session.waitFor(predicate, {
        timeoutMs: args.timeoutMs,
        signal: context.signal,
        onTick: progressTicker(context, args.timeoutMs, `waiting for ${args.for}`),
      });
      const matched = outcome === 'matched' || (outcome === 'exited' && (await predicate()));
      const state = await session.state();
      const waitedMs = Date.now() - started;
      const data = {
        matched,
        outcome: matched ? 'matched' : outcome,
        state,
        waitedMs,
        match,
        nextCursor: session.outputEnd,
        exitCode: session.lastExitCode,
      };
      if (outcome === 'aborted') {
        return failureResult(ToolErrorCode.TIMEOUT, 'the wait was cancelled', {
          retryable: false,
          hint: 'Call terminal.wait again with a smaller timeoutMs.',
          details: data,
        });
      }
      if (matched) {
        const what =
          args.for === 'pattern'
            ? 'the pattern matched'
            : args.for === 'command_end' && !commandWasActive && session.integration !== 'none'
              ? 'no command was running'
              : `${args.for} reached`;
        return successResult(
          `${what} after ${formatMs(waitedMs)}; state ${state}, last exit code ${session.lastExitCode ?? '-'}, nextCursor ${data.nextCursor}.${args.for === 'pattern' ? `\nMatched text:\n${outputBlock(match ?? '')}` : ''}`,
          { data },
        );
      }
      return successResult(
        `Not yet: ${outcome === 'exited' ? 'the shell exited' : `nothing matched within ${formatMs(waitedMs)}`} (state ${state}). Read what arrived with terminal.observe {"sessionId": "${session.id}", "mode": "raw", "cursor": ${from}}; wait again, answer with terminal.write, or stop it with terminal.signal.`,
        { data },
      );
    },
  });
}
