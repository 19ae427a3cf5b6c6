import { isAbsolute, resolve } from 'node:path';
import {
  defineToolPackage,
  handleOwnerOf,
  type ToolPackageStatus,
} from '@toolsys/core-tool-registry';
import { probeCommandSandbox } from '@toolsys/platform';
import { z } from 'zod';
import { findPtyBackend, loadPty } from './pty-backend.js';
import { RootfsManager } from './rootfs-manager.js';
import { findProgram } from './shells.js';
import { TerminalManager } from './terminal-manager.js';
import { createTerminalTools } from './tools/index.js';

/** The `packages.platform-terminal` section of `toolsys.config.json`. */
export const terminalConfigSchema = z
  .object({
    /** Most sessions open at once (1-64). Default 8. */
    maxSessions: z.number().int().min(1).max(64).default(8),
    /** A session without input or output for this long is closed (ms, at least 10 s). Default 30 min. */
    idleTimeoutMs: z
      .number()
      .int()
      .min(10_000)
      .default(30 * 60_000),
    /** Raw output kept per session for cursor reads (4 KiB - 64 MiB). Default 256 KiB. */
    ringBytes: z
      .number()
      .int()
      .min(4_096)
      .max(64 * 1024 * 1024)
      .default(256 * 1024),
    /** Default shell (name on PATH or absolute path). Default bash, else sh. */
    shell: z.string().min(1).optional(),
    /** Quiet time terminal.write waits for before reading the screen (ms). Default 300. */
    settleMs: z.number().int().min(0).max(5_000).default(300),
    /** Folder for the Linux root filesystems; relative to the config's folder. Default `<dataDir>/terminal/rootfs`. */
    rootfsDir: z.string().min(1).optional(),
    /** Debian suite for terminal.linux_bootstrap. Default bookworm. */
    debianSuite: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/)
      .default('bookworm'),
    /** Debian archive URL. Default http://deb.debian.org/debian. */
    debianMirror: z.url().default('http://deb.debian.org/debian'),
    /** Ubuntu suite for the ubuntu tools. Default jammy. */
    ubuntuSuite: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/)
      .default('jammy'),
    /** Ubuntu archive URL; without it the ubuntu tools say that none is configured. */
    ubuntuMirror: z.url().optional(),
    /**
     * Which sessions run inside the OS sandbox of shell_execute (bubblewrap: workspace read-only,
     * no network, own PID namespace): `off` none, `optional` (default) those opened with
     * `sandbox: true`, `required` every session. Input to an unsandboxed session always asks.
     */
    sandbox: z.enum(['off', 'optional', 'required']).default('optional'),
    /** The bubblewrap executable. Default: `bwrap` on PATH. */
    sandboxExecutable: z.string().min(1).optional(),
    /**
     * More variables unsandboxed shells receive beyond the allow-list (`JAVA_HOME` …); names
     * that read as credentials and credential-shaped values stay withheld. Default none.
     */
    passEnvironment: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'More variables unsandboxed shells receive (JAVA_HOME …); credential names and values stay withheld.',
      ),
  })
  .strict();

/** The parsed config of the terminal package. */
export type TerminalConfig = z.infer<typeof terminalConfigSchema>;

const PTY_PROBE_TIMEOUT_MS = 5_000;

/**
 * Opens a PTY running `exit 0` and waits for it to end: the thorough backend check (it loads
 * node-pty). Detection uses the cheaper {@link findPtyBackend}.
 */
export async function probePty(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ToolPackageStatus> {
  const shell = (await findProgram('sh', env)) ?? '/bin/sh';
  return new Promise((resolvePromise) => {
    let child: ReturnType<ReturnType<typeof loadPty>['spawn']>;
    try {
      child = loadPty().spawn(shell, ['-c', 'exit 0'], {
        cols: 20,
        rows: 5,
        cwd: '/',
        env: { PATH: env.PATH ?? '/usr/bin:/bin' },
      });
    } catch (error) {
      resolvePromise({
        enabled: false,
        reason: `cannot open a PTY: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    const timer = setTimeout(() => {
      try {
        child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
      resolvePromise({
        enabled: false,
        reason: 'a PTY opened but its shell did not run within 5 s',
      });
    }, PTY_PROBE_TIMEOUT_MS);
    child.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolvePromise(
        exitCode === 0
          ? { enabled: true, reason: `PTY available; ${shell} ran on it` }
          : { enabled: false, reason: `a shell on a PTY exited with ${exitCode}` },
      );
    });
  });
}

/**
 * The terminal package entry: PTY sessions and a proot Linux rootfs as the 18 `terminal.*` tools.
 * On when a PTY can be opened.
 */
export const toolPackage = defineToolPackage<TerminalConfig>({
  name: '@toolsys/platform-terminal',
  key: 'platform-terminal',
  description:
    'Interactive PTY terminal sessions, screen snapshots and a proot Linux rootfs (18 terminal.* tools).',
  configSchema: terminalConfigSchema,
  async detect(environment) {
    // Nothing is opened and node-pty is not loaded here: start-up stays cheap, and a PTY that
    // still cannot open is reported by the first terminal.open.
    const pty = await findPtyBackend(environment.env, environment.config.shell);
    if (!pty.enabled) return pty;
    const { sandbox: mode, sandboxExecutable } = environment.config;
    if (environment.probes === 'deciding' && mode !== 'required') {
      // The sandbox and the rootfs tools only refine the reason here: a starting server does not
      // wait for them. A session that asks for them probes (once); `toolsys doctor` shows them.
      return {
        enabled: true,
        reason: `${pty.reason}; the sandbox and the rootfs tools are probed when a session needs them`,
      };
    }
    const sandbox =
      mode === 'off'
        ? undefined
        : await probeCommandSandbox(
            sandboxExecutable === undefined ? {} : { executable: sandboxExecutable },
          );
    if (mode === 'required' && sandbox?.available !== true) {
      return {
        enabled: false,
        reason: `every session must run in the sandbox (packages.platform-terminal.sandbox = "required"), but it cannot start: ${sandbox?.reason ?? 'no probe'}`,
      };
    }
    const sandboxText =
      sandbox === undefined
        ? 'sandboxed sessions off'
        : sandbox.available
          ? `${mode === 'required' ? 'every session' : 'sessions that ask'} run in the bubblewrap sandbox`
          : `no sandboxed sessions (${sandbox.reason})`;
    const proot = await findProgram('proot', environment.env);
    const debootstrap =
      (await findProgram('debootstrap', environment.env)) ??
      (await findProgram('/usr/sbin/debootstrap', environment.env));
    const rootfs =
      proot === undefined || debootstrap === undefined
        ? `the rootfs tools will refuse until ${[proot === undefined ? 'proot' : '', debootstrap === undefined ? 'debootstrap' : ''].filter(Boolean).join(' and ')} not installed`
        : 'proot and debootstrap found';
    return { enabled: true, reason: `${pty.reason}; ${sandboxText}; ${rootfs}` };
  },
  create(context) {
    const { config } = context;
    const rootfsBase =
      config.rootfsDir === undefined
        ? resolve(context.dataDir, 'terminal', 'rootfs')
        : isAbsolute(config.rootfsDir)
          ? config.rootfsDir
          : resolve(context.configDir, config.rootfsDir);
    const rootfs = new RootfsManager({
      baseDir: rootfsBase,
      debian: { suite: config.debianSuite, mirror: config.debianMirror },
      ubuntu: {
        suite: config.ubuntuSuite,
        ...(config.ubuntuMirror === undefined ? {} : { mirror: config.ubuntuMirror }),
      },
      environment: context.env,
    });
    const manager = new TerminalManager({
      workspaceRoot: context.workspaceRoot,
      maxSessions: config.maxSessions,
      idleTimeoutMs: config.idleTimeoutMs,
      ringBytes: config.ringBytes,
      environment: context.env,
      rootfsDir: rootfs.directory('debian'),
      sandbox: config.sandbox,
      ...(config.sandboxExecutable === undefined
        ? {}
        : { sandboxExecutable: config.sandboxExecutable }),
      ...(config.shell === undefined ? {} : { shell: config.shell }),
      ...(config.passEnvironment === undefined ? {} : { passEnvironment: config.passEnvironment }),
      ...(context.replicaName === undefined ? {} : { replicaName: context.replicaName }),
    });
    if (context.mode === 'serve') manager.startReaper();
    return {
      tools: createTerminalTools({
        manager,
        rootfs,
        settleMs: config.settleMs,
        environment: context.env,
      }),
      async dispose() {
        await Promise.all([manager.dispose(), rootfs.dispose()]);
      },
      // A client session's terminals end with it: no other client ever sees them.
      endSession: (sessionId) => manager.endSession(sessionId),
      offerings: {
        // A `sessionId` argument completes to the caller's own terminals, never another's.
        completers: [
          {
            argument: 'sessionId',
            complete: (value, caller) =>
              manager
                .listOwned(handleOwnerOf(caller))
                .map((session) => session.id)
                .filter((id) => id.startsWith(value)),
          },
        ],
      },
    };
  },
});
