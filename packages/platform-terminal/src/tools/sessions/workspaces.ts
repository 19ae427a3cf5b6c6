import {
  type AnyToolDefinition,
  defineTool,
  handleOwnerOf,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { TerminalManager } from '../../terminal-manager.js';
import { formatMs, showDirectory } from '../tool-support.js';

/** The `terminal.workspaces` tool. */
export function createTerminalWorkspacesTool(manager: TerminalManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.workspaces',
    description: "Lists this client's terminal sessions.",
    inputSchema: ToolSchema.object({}),
    outputSchema: ToolSchema.object({
      sessions: z.array(
        z.object({
          sessionId: z.string(),
          shell: z.string(),
          backend: z.string(),
          sandboxed: z.boolean(),
          state: z.string(),
          cwd: z.string().nullable(),
          lastExitCode: z.number().nullable(),
          ageMs: z.number(),
          idleMs: z.number(),
        }),
      ),
      maxSessions: z.number(),
      idleTimeoutMs: z.number(),
    }),
    metadata: { category: 'terminal', risk: 'LOW', tags: ['pty'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute(_args, context) {
      const now = Date.now();
      const sessions = await Promise.all(
        manager.listOwned(handleOwnerOf(context)).map(async (session) => ({
          sessionId: session.id,
          shell: session.shellName,
          backend: session.backend,
          sandboxed: session.sandboxed,
          state: await session.state(),
          cwd: showDirectory(manager.workspaceRoot, await session.currentDirectory()),
          lastExitCode: session.lastExitCode,
          ageMs: Math.max(0, now - session.createdAt),
          idleMs: Math.max(0, now - session.lastActivity),
        })),
      );
      const data = {
        sessions,
        maxSessions: manager.maxSessions,
        idleTimeoutMs: manager.idleTimeoutMs,
      };
      if (sessions.length === 0) {
        return successResult(
          `No terminal session is open (limit ${manager.maxSessions}). Start one with terminal.create.`,
          { data },
        );
      }
      const lines = sessions.map(
        (entry) =>
          `- ${entry.sessionId}: ${entry.shell} (${entry.backend}${entry.sandboxed ? ', sandboxed' : ''}) ${entry.state}, cwd ${entry.cwd ?? '?'}, last exit ${entry.lastExitCode ?? '-'}, age ${formatMs(entry.ageMs)}, idle ${formatMs(entry.idleMs)}`,
      );
      return successResult(
        `${sessions.length} of at most ${manager.maxSessions} sessions open:\n${lines.join('\n')}`,
        { data },
      );
    },
  });
}
