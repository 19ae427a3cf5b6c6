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
import { z } from 'zod';
import type { TerminalSession } from '../../terminal-session.js';
import { outputBlock, showDirectory, shownSnapshot } from '../tool-support.js';
import { openSession, type SessionToolsOptions, sandboxArgument } from './shared.js';

/** The `terminal.create` tool. */
export function createTerminalCreateTool(options: SessionToolsOptions): AnyToolDefinition {
  const { manager } = options;
  const input = {
    shell: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('"bash", "zsh" or a path in /etc/shells.'),
    cwd: z.string().max(4_096).default('.').describe('Workspace folder.'),
    cols: z.number().int().min(10).max(1_000).default(120).describe('Columns.'),
    rows: z.number().int().min(2).max(500).default(32).describe('Rows.'),
    backend: z.enum(['local', 'proot']).default('local').describe('proot: the Linux rootfs.'),
    sandbox: sandboxArgument(manager),
  };
  const fields = new Set(Object.keys(input));
  return defineTool({
    id: 'terminal.create',
    description:
      'Starts an interactive shell on a PTY; returns its session id and screen. For one command use terminal.run alone.',
    inputSchema: ToolSchema.object(input),
    outputSchema: ToolSchema.object({
      sessionId: z.string(),
      shell: z.string(),
      backend: z.enum(['local', 'proot']),
      sandboxed: z.boolean(),
      cwd: z.string().nullable(),
      state: z.string(),
      screen: z.array(z.string()),
    }),
    metadata: {
      category: 'terminal',
      risk: 'MEDIUM',
      tags: ['pty', 'process'],
      annotations: { ...ToolHints.mutating, openWorldHint: true },
    },
    runPolicy: { ...RunPolicies.mutating, timeoutMs: 30_000 },
    async execute(args, context) {
      const unknown = Object.keys(args).find((name) => !fields.has(name));
      if (unknown !== undefined) {
        // Arguments or environment for the shell would run code before any command is confirmed.
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `${unknown}: terminal.create takes no such argument (it accepts ${[...fields].join(', ')}); the shell starts without arguments or extra environment`,
          {
            field: unknown,
            hint: 'Create the session without it, then set variables or run the program with terminal.run, which asks the user for each command outside the sandbox.',
          },
        );
      }
      if (args.backend === 'proot' && options.rootfs && !(await options.rootfs.isReady('debian'))) {
        const status = await options.rootfs.status('debian');
        return failureResult(
          ToolErrorCode.UNSUPPORTED,
          `backend: the Linux rootfs is not ready (${status.state})`,
          {
            field: 'backend',
            hint:
              status.state === 'bootstrapping'
                ? 'Wait for the build: poll terminal.linux_status, then retry.'
                : 'Build it with terminal.linux_bootstrap and poll terminal.linux_status, or use backend "local".',
          },
        );
      }
      const session = await openSession(manager, { ...args, owner: handleOwnerOf(context) });
      if ('ok' in session) return session;
      const snapshot = shownSnapshot(await session.snapshot());
      const state = await session.state();
      const cwd = showDirectory(manager.workspaceRoot, await session.currentDirectory());
      return successResult(
        `Session ${session.id} started (${session.shellName}, ${session.backend}${session.sandboxed ? ', sandboxed' : ''}, ${snapshot.cols}x${snapshot.rows}, state ${state}). ${describeInputRule(session)} Run commands with terminal.run {"sessionId": "${session.id}", "command": "…"}.\nScreen:\n${outputBlock(snapshot.lines.join('\n'))}`,
        {
          data: {
            sessionId: session.id,
            shell: session.shellName,
            backend: session.backend,
            sandboxed: session.sandboxed,
            cwd,
            state,
            screen: snapshot.lines,
          },
        },
      );
    },
  });
}

/** What the model must know about input to this session: whether each input asks the user. */
export function describeInputRule(session: TerminalSession): string {
  return session.sandboxed
    ? 'It runs in the OS sandbox (workspace read-only, /tmp writable, no network): input runs without asking.'
    : 'It is not sandboxed: every command and keystroke sent to it asks the user first.';
}
