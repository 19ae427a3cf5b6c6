import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  handleOwnerOf,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { classifyCommand } from '@toolsys/platform';
import { z } from 'zod';
import { toPlainText } from '../../terminal-keys.js';
import type { TerminalManager } from '../../terminal-manager.js';
import type { TerminalSession } from '../../terminal-session.js';
import { openSession, sandboxArgument } from '../sessions/shared.js';
import {
  clipMiddle,
  confirmUnsandboxedInput,
  formatMs,
  MAX_WAIT_MS,
  outputBlock,
  sessionIdField,
  showOutput,
  unknownSession,
  WAITING_TOOL_TIMEOUT_MS,
} from '../tool-support.js';
import { progressTicker } from './shared.js';

const QUIET_FOR_PLAIN_SHELL_MS = 250;

/** The `terminal.run` tool. */
export function createTerminalRunTool(manager: TerminalManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.run',
    description:
      'Runs a command line in a terminal session; returns exit code and output, or a cursor for terminal.wait.',
    inputSchema: ToolSchema.object({
      command: z.string().min(1).max(100_000).describe('Command line.'),
      sessionId: sessionIdField.optional().describe('Session; default one-off.'),
      waitMs: z.number().int().min(0).max(MAX_WAIT_MS).default(30_000).describe('Wait in ms.'),
      sandbox: sandboxArgument(manager).describe(
        `One-off session in the OS sandbox; runs without asking.${manager.sandboxMode === 'required' ? ' Required here.' : ''}`,
      ),
      maxOutputChars: z
        .number()
        .int()
        .min(200)
        .max(200_000)
        .default(16_000)
        .describe('Most output characters.'),
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
      // Each command is classified and, outside the sandbox, confirmed on its own.
      gatesItself: true,
      // Calls can take minutes: a client that supports tasks may run one as a task.
      taskSupport: 'optional',
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
          owner: handleOwnerOf(context),
        });
        if ('ok' in opened) return opened;
        session = opened;
        ownSession = true;
      } else {
        const found = manager.getOwned(args.sessionId, handleOwnerOf(context));
        if (found === undefined || found.isClosed) {
          return unknownSession(manager, args.sessionId, handleOwnerOf(context));
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

/** Without a start mark the echoed command line heads the output; drop its first occurrence. */
function dropEchoedCommand(text: string, command: string): string {
  const firstLine = command.split('\n')[0] ?? '';
  const index = text.indexOf(firstLine);
  if (index < 0) return text;
  const newline = text.indexOf('\n', index + firstLine.length);
  return newline < 0 ? '' : text.slice(newline + 1);
}
