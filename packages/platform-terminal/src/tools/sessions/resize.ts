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

/** The `terminal.resize` tool. */
export function createTerminalResizeTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.resize',
    description: "Resizes a session's terminal.",
    inputSchema: ToolSchema.object({
      sessionId: sessionIdField,
      cols: z.number().int().min(10).max(1_000).describe('Columns.'),
      rows: z.number().int().min(2).max(500).describe('Rows.'),
    }),
    metadata: {
      category: 'terminal',
      risk: 'LOW',
      tags: ['pty'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.quickRead,
    execute(session, { cols, rows }) {
      if (session.exit) {
        return failureResult(ToolErrorCode.EXECUTION_FAILED, `session ${session.id} has exited`, {
          retryable: false,
          hint: 'Read its output with terminal.observe, then close it with terminal.close.',
        });
      }
      session.resize(cols, rows);
      return successResult(`Session ${session.id} is now ${cols}x${rows}.`);
    },
  });
}
