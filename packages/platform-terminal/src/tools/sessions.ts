import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { RootfsManager } from '../rootfs-manager.js';
import { findProgram, findShells } from '../shells.js';
import { SessionCreateError, type TerminalManager } from '../terminal-manager.js';
import type { TerminalSession } from '../terminal-session.js';
import {
  defineSessionTool,
  formatMs,
  outputBlock,
  resolveSessionDirectory,
  showDirectory,
  shownSnapshot,
} from './tool-support.js';

/** Options for {@link createSessionTools}. */
export interface SessionToolsOptions {
  /** The sessions the tools act on. */
  readonly manager: TerminalManager;
  /** The rootfs behind the `proot` backend; undefined when the deployment has none. */
  readonly rootfs?: RootfsManager;
  /** Environment used to look for shells and programs. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

const FIRST_PROMPT_WAIT_MS = 5_000;

const sessionId = z
  .string()
  .min(1)
  .max(64)
  .describe(
    'Id of an open session, from terminal.create or terminal.workspaces (e.g. "t-0c3f9a2b7d41e8a5b6c2").',
  );

/**
 * `terminal.create`, `terminal.close`, `terminal.workspaces`, `terminal.backends`,
 * `terminal.resize` and `terminal.signal`.
 */
export function createSessionTools(options: SessionToolsOptions): AnyToolDefinition[] {
  return [
    createTool(options),
    closeTool(options.manager),
    workspacesTool(options.manager),
    backendsTool(options),
    resizeTool(options.manager),
    signalTool(options.manager),
  ];
}

/** The `sandbox` argument of the tools that open a session; its default follows the deployment. */
export function sandboxArgument(manager: TerminalManager) {
  const required = manager.sandboxMode === 'required';
  return z
    .boolean()
    .default(required)
    .describe(
      `Run the shell inside the OS sandbox of shell_execute: the workspace read-only at its own path, /tmp (also HOME) a writable scratch folder that goes with the session, no network, no secrets under /etc, its own process namespace. Input to a sandboxed session runs without asking the user; input to any other session asks before every command or keystroke. Use it to explore, build into /tmp, or run read-only checks; use an unsandboxed session to change workspace files or reach the network. ${required ? 'Default true: every session here runs sandboxed.' : 'Default false.'} terminal.backends says whether the sandbox can start here.`,
    );
}

/** Starts a session and waits (briefly) for its first prompt; shared with terminal.run. */
export async function openSession(
  manager: TerminalManager,
  request: {
    shell?: string;
    cwd: string;
    cols: number;
    rows: number;
    backend: 'local' | 'proot';
    sandbox: boolean;
    /** The client session opening it (`context.sessionId`). */
    owner: string;
  },
): Promise<TerminalSession | ReturnType<typeof failureResult>> {
  const directory = await resolveSessionDirectory(manager.workspaceRoot, request.cwd);
  if ('ok' in directory) return directory;
  try {
    const session = await manager.create({
      cwd: directory.absolute,
      cols: request.cols,
      rows: request.rows,
      backend: request.backend,
      sandbox: request.sandbox,
      owner: request.owner,
      ...(request.shell === undefined ? {} : { shell: request.shell }),
    });
    await session.waitFor(
      () =>
        session.integration !== 'none'
          ? session.prompts > 0
          : session.outputEnd > 0 && Date.now() - session.lastOutputAt > 200,
      { timeoutMs: FIRST_PROMPT_WAIT_MS },
    );
    return session;
  } catch (error) {
    if (!(error instanceof SessionCreateError)) throw error;
    switch (error.reason) {
      case 'limit':
        return failureResult(ToolErrorCode.EXECUTION_FAILED, error.message, {
          retryable: false,
          hint: 'Close a session you no longer need with terminal.close (terminal.workspaces lists yours; sessions of other clients count too), then retry.',
        });
      case 'shell': {
        const available = error.available ?? [];
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `shell: ${error.message}${available.length > 0 ? `. Shells available: ${available.join(', ')}` : ''}`,
          {
            field: 'shell',
            hint: 'Omit shell for the default or pick one of the shells available; to run another program, start a shell and run the program in it with terminal.run, which asks the user for each command outside the sandbox.',
            ...(error.available === undefined ? {} : { details: { available } }),
          },
        );
      }
      case 'backend':
        return failureResult(ToolErrorCode.UNSUPPORTED, `backend: ${error.message}`, {
          field: 'backend',
          hint: 'Use backend "local", or build the rootfs with terminal.linux_bootstrap and follow terminal.linux_status.',
        });
      case 'pty':
        return failureResult(ToolErrorCode.UNSUPPORTED, error.message, {
          hint: 'Terminals cannot run in this deployment; use shell_execute instead.',
        });
      case 'sandbox_off':
        return failureResult(ToolErrorCode.UNSUPPORTED, `sandbox: ${error.message}`, {
          field: 'sandbox',
          hint: 'Open the session without sandbox (every input then asks the user), or ask the user to set packages.platform-terminal.sandbox to "optional" in toolsys.config.json.',
        });
      case 'sandbox_required':
        return failureResult(ToolErrorCode.PERMISSION_DENIED, `sandbox: ${error.message}`, {
          field: 'sandbox',
          hint: 'Omit sandbox (or set it to true); to change workspace files use the file tools.',
        });
      case 'sandbox_unavailable':
        return failureResult(ToolErrorCode.UNSUPPORTED, `sandbox: ${error.message}`, {
          field: 'sandbox',
          retryable: false,
          hint:
            manager.sandboxMode === 'required'
              ? 'No terminal session can start here until the user installs bubblewrap (apt-get install bubblewrap) or lets it create namespaces; do not retry.'
              : 'Do not retry with the sandbox: open the session with sandbox false (every input then asks the user), or ask the user to install bubblewrap (apt-get install bubblewrap) or let it create namespaces.',
        });
      default: {
        const unreachable: never = error.reason;
        throw new Error(`unknown refusal ${String(unreachable)}`);
      }
    }
  }
}

function createTool(options: SessionToolsOptions): AnyToolDefinition {
  const { manager } = options;
  const input = {
    shell: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'Shell to start: a name ("bash", "sh", "zsh") or an absolute path of a login shell listed in /etc/shells; any other program is refused (run it with terminal.run inside a shell). Default: bash when present.',
      ),
    cwd: z
      .string()
      .max(4_096)
      .default('.')
      .describe('Starting folder, relative to the workspace root. Default the root.'),
    cols: z.number().int().min(10).max(1_000).default(120).describe('Columns (10-1000).'),
    rows: z.number().int().min(2).max(500).default(32).describe('Rows (2-500).'),
    backend: z
      .enum(['local', 'proot'])
      .default('local')
      .describe(
        '"local": a shell on this machine. "proot": a shell inside the Linux rootfs (terminal.linux_status says whether it is ready), with the workspace at /workspace.',
      ),
    sandbox: sandboxArgument(manager),
  };
  const fields = new Set(Object.keys(input));
  return defineTool({
    id: 'terminal.create',
    description:
      'Starts an interactive shell on a real pseudo-terminal (PTY) and returns its session id and first screen. Use it for interactive programs (vim, less, top, REPLs, password prompts), long-running processes you want to watch, or a shell whose state (cwd, variables) persists between commands. Drive it with terminal.run (a command line) and terminal.write (keystrokes); read it with terminal.observe, terminal.snapshot and terminal.wait; end it with terminal.close. For a single non-interactive command, terminal.run without a sessionId is simpler. With sandbox true the shell runs in the OS sandbox (workspace read-only, no network) and its input needs no confirmation; input to an unsandboxed session asks the user before every command or keystroke. Sessions are limited per deployment and closed after a period without input or output.',
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
      const session = await openSession(manager, { ...args, owner: context.sessionId });
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

function closeTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.close',
    description:
      'Closes a terminal session: hangs up its shell and kills every process it started (its process group, its children, and processes that detached with setsid). Output that was not read is lost. Use terminal.signal to stop only the running command.',
    inputSchema: ToolSchema.object({ sessionId }),
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

function workspacesTool(manager: TerminalManager): AnyToolDefinition {
  return defineTool({
    id: 'terminal.workspaces',
    description:
      "Lists the open terminal sessions of this client session (those it opened; other clients' sessions are never shown): id, shell, backend, whether it is sandboxed, state (idle, running, waiting_for_input, exited), current folder, last exit code, age and idle time, plus the session limit. Use it to find a session id or to see which session is busy.",
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
        manager.listOwned(context.sessionId).map(async (session) => ({
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

function backendsTool(options: SessionToolsOptions): AnyToolDefinition {
  const environment = options.environment ?? process.env;
  return defineTool({
    id: 'terminal.backends',
    description:
      'Says where terminal sessions can run: the local PTY with the shells found on this machine, the OS sandbox (whether sandboxed sessions are off, optional or required here, and whether bubblewrap can start one, or why not), and the proot Linux rootfs (whether proot and debootstrap are installed and whether a rootfs is ready, or why not). Use it before terminal.create with a shell, backend or sandbox other than the default.',
    inputSchema: ToolSchema.object({}),
    outputSchema: ToolSchema.object({
      local: z.object({ available: z.boolean(), shells: z.array(z.string()) }),
      sandbox: z.object({
        mode: z.enum(['off', 'optional', 'required']),
        available: z.boolean(),
        reason: z.string(),
      }),
      proot: z.object({
        available: z.boolean(),
        reason: z.string(),
        proot: z.string().nullable(),
        debootstrap: z.string().nullable(),
      }),
    }),
    metadata: { category: 'terminal', risk: 'LOW', tags: ['pty'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute() {
      const shells = await findShells(environment);
      const proot = await findProgram('proot', environment);
      const debootstrap =
        (await findProgram('debootstrap', environment)) ??
        (await findProgram('/usr/sbin/debootstrap', environment));
      const rootfsReady = options.rootfs ? await options.rootfs.isReady() : false;
      const sandbox = await options.manager.sandboxStatus();
      const reason =
        proot === undefined
          ? 'proot is not installed (apt-get install proot)'
          : options.rootfs === undefined
            ? 'no rootfs directory is configured for this deployment'
            : rootfsReady
              ? 'a rootfs is ready'
              : 'no rootfs yet: build one with terminal.linux_bootstrap';
      const data = {
        local: { available: shells.length > 0, shells: shells.map((shell) => shell.name) },
        sandbox,
        proot: {
          available: proot !== undefined && rootfsReady,
          reason,
          proot: proot ?? null,
          debootstrap: debootstrap ?? null,
        },
      };
      return successResult(
        `local PTY: ${shells.length > 0 ? `shells ${shells.map((shell) => shell.name).join(', ')}` : 'no shell found'}\nsandbox (${sandbox.mode}): ${sandbox.available ? 'available' : 'not available'} (${sandbox.reason})\nproot rootfs: ${data.proot.available ? 'ready' : 'not available'} (${reason}); debootstrap ${debootstrap === undefined ? 'not installed' : 'installed'}`,
        { data },
      );
    },
  });
}

function resizeTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.resize',
    description:
      "Changes the size of a session's terminal (columns and rows); full-screen programs redraw for the new size. Use it when output wraps badly or a full-screen program needs more room.",
    inputSchema: ToolSchema.object({
      sessionId,
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

const SIGNALS = ['INT', 'TERM', 'KILL', 'HUP', 'TSTP', 'CONT'] as const;

function signalTool(manager: TerminalManager): AnyToolDefinition {
  return defineSessionTool(manager, {
    id: 'terminal.signal',
    description:
      'Sends a signal to the foreground process group of a session (the running command and its pipeline): INT (like Ctrl-C), TERM, KILL, HUP, TSTP (suspend, like Ctrl-Z) or CONT. Use it to stop a hung or long command; the shell itself stays. Use terminal.close to end the whole session.',
    inputSchema: ToolSchema.object({
      sessionId,
      signal: z.enum(SIGNALS).default('INT').describe('Signal name. Default INT.'),
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
