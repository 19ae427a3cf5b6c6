import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { TerminalManager } from '../../terminal-manager.js';
import { defineSessionTool, outputBlock, sessionIdField, shownSnapshot } from '../tool-support.js';

/** The `terminal.snapshot` tool. */
export function createTerminalSnapshotTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.snapshot',
    description: "Returns a session's screen as text.",
    inputSchema: ToolSchema.object({
      sessionId: sessionIdField,
      scrollbackLines: z
        .number()
        .int()
        .min(0)
        .max(5_000)
        .default(0)
        .describe('Rows above the screen.'),
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
