import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { TerminalManager } from '../../terminal-manager.js';
import { defineSessionTool, sessionIdField } from '../tool-support.js';

/** The `terminal.close` tool. */
export function createTerminalCloseTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.close',
    description: 'Closes a session and kills its processes.',
    inputSchema: ToolSchema.object({ sessionId: sessionIdField }),
    outputSchema: ToolSchema.object({
      sessionId: z.string(),
      exitCode: z.number().nullable(),
    }),
    metadata: {
      category: 'terminal',
      risk: 'MEDIUM',
      tags: ['pty', 'process'],
      annotations: { ...ToolHints.destructive, idempotentHint: true },
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: 30_000 },
    async execute(session) {
      await manager.close(session.id);
      const exitCode = session.exit?.exitCode ?? null;
      return successResult(`Session ${session.id} closed; all of its processes were ended.`, {
        data: { sessionId: session.id, exitCode },
      });
    },
  });
}
