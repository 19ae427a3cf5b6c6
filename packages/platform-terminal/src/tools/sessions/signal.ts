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
import type { TerminalManager } from '../../terminal-manager.js';
import { defineSessionTool, sessionIdField } from '../tool-support.js';

const SIGNALS = ['INT', 'TERM', 'KILL', 'HUP', 'TSTP', 'CONT'] as const;

/** The `terminal.signal` tool. */
export function createTerminalSignalTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.signal',
    description: "Sends a signal (INT = Ctrl-C) to a session's running command.",
    inputSchema: ToolSchema.object({
      sessionId: sessionIdField,
      signal: z.enum(SIGNALS).default('INT').describe('Signal.'),
    }),
    outputSchema: ToolSchema.object({
      signal: z.string(),
      processGroup: z.number(),
      state: z.string(),
    }),
    metadata: {
      category: 'terminal',
      risk: 'MEDIUM',
      tags: ['pty', 'process'],
      annotations: ToolHints.destructive,
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: 30_000 },
    async execute(session, { signal }) {
      const group = await session.foregroundGroup();
      if (group === undefined) {
        return failureResult(ToolErrorCode.EXECUTION_FAILED, `session ${session.id} has exited`, {
          retryable: false,
          hint: 'Nothing is running there. Read its output with terminal.observe or close it.',
        });
      }
      try {
        process.kill(-group, `SIG${signal}` as NodeJS.Signals);
      } catch (error) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `could not send SIG${signal}: ${error instanceof Error ? error.message : String(error)}`,
          { retryable: false, hint: 'Check the session with terminal.observe {"mode": "state"}.' },
        );
      }
      await session.waitFor(() => false, { timeoutMs: 150 });
      const state = await session.state();
      return successResult(
        `SIG${signal} sent to process group ${group} of session ${session.id}; state now ${state}.`,
        { data: { signal, processGroup: group, state } },
      );
    },
  });
}
