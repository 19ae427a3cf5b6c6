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
    description:
      "Changes the size of a session's terminal (columns and rows); full-screen programs redraw for the new size. Use it when output wraps badly or a full-screen program needs more room.",
    inputSchema: ToolSchema.object({
      sessionId: sessionIdField,
      cols: z.number().int().min(10).max(1_000).describe('Columns (10-1000).'),
      rows: z.number().int().min(2).max(500).describe('Rows (2-500).'),
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
