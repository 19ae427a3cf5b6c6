import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { toPlainText } from '../../terminal-keys.js';
import type { TerminalManager } from '../../terminal-manager.js';
import type { SessionState } from '../../terminal-session.js';
import {
  defineSessionTool,
  outputBlock,
  sessionIdField,
  shownSnapshot,
  showOutput,
  showOutputLine,
  utf8SafeLength,
} from '../tool-support.js';

/**
 * Most characters of output one `terminal.observe` "raw" call shows: the text appears in the
 * result's text and in its data, together within the 200,000 characters one result holds.
 */
const MAX_RAW_CHARS = 90_000;

/** The smallest read a "raw" call makes smaller to fit {@link MAX_RAW_CHARS}. */
const MIN_RAW_BYTES = 4_096;

/** The `terminal.observe` tool. */
export function createTerminalObserveTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.observe',
    description: 'Reads a session (state, events, screen, raw output) from a cursor.',
    inputSchema: ToolSchema.object({
      sessionId: sessionIdField,
      mode: z.enum(['state', 'events', 'screen', 'raw']).default('state').describe('What to read.'),
      cursor: z.number().int().min(0).optional().describe('nextCursor of an earlier call.'),
      maxBytes: z.number().int().min(1).max(1_048_576).default(16_384).describe('raw: most bytes.'),
      plain: z.boolean().default(true).describe('raw: strip escape sequences.'),
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
