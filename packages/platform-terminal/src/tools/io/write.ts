import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { encodeKey, KEY_NAMES_HELP } from '../../terminal-keys.js';
import type { TerminalManager } from '../../terminal-manager.js';
import {
  confirmUnsandboxedInput,
  defineSessionTool,
  outputBlock,
  sessionIdField,
  shownSnapshot,
} from '../tool-support.js';

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

/** The `terminal.write` tool. */
export function createTerminalWriteTool(
  manager: TerminalManager,
  defaultSettleMs: number,
): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.write',
    description:
      'Types text, then named keys, into a session (prompts, full-screen programs); returns the settled screen.',
    inputSchema: ToolSchema.object({
      sessionId: sessionIdField,
      text: z.string().max(100_000).optional().describe('Literal text.'),
      keys: z
        .array(z.string().min(1).max(32))
        .max(64)
        .optional()
        .describe('Named keys after the text, e.g. ["Enter"], ["C-c"], ["Up"], ["M-x"].'),
      settleMs: z
        .number()
        .int()
        .min(0)
        .max(5_000)
        .optional()
        .describe('Quiet ms before reading; default 300.'),
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
      // Input to a session outside the sandbox is confirmed on its own.
      gatesItself: true,
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
