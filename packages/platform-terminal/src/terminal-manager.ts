import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type HandleOwner, isHandleOwner, mintHandle } from '@toolsys/core-tool-registry';
import {
  approvedEnvironment,
  buildSandboxArguments,
  type CommandSandboxStatus,
  prepareGitWrapper,
  probeCommandSandbox,
  SANDBOX_LAUNCHER_ARGUMENTS,
} from '@toolsys/platform';
import { prootRootArguments } from './rootfs-manager.js';
import { isRootfsFile } from './rootfs-paths.js';
import { type ShellInit, writeShellInit } from './shell-init.js';
import { newMarkKey } from './shell-marks.js';
import { findProgram, findRootfsListedShell, resolveShell } from './shells.js';
import { type SessionBackend, type ShellIntegration, TerminalSession } from './terminal-session.js';

/**
 * Which sessions run inside the OS sandbox of `shell_execute` (bubblewrap: workspace read-only, no
 * network, a minimal /etc, own PID namespace): `off` none (a request for one is refused),
 * `optional` those whose caller asks for it, `required` every session (a request for an
 * unsandboxed one is refused).
 */
export type TerminalSandboxMode = 'off' | 'optional' | 'required';

/** Whether sandboxed sessions can start, as {@link TerminalManager.sandboxStatus} reports it. */
export interface TerminalSandboxStatus {
  readonly mode: TerminalSandboxMode;
  /** True when a sandboxed session can start now. */
  readonly available: boolean;
  /** One sentence: what runs the sandbox, or why it cannot start and what to do. */
  readonly reason: string;
}

/** Options for {@link TerminalManager}. */
export interface TerminalManagerOptions {
  /** Directory sessions start in and `cwd` is confined to (absolute). */
  readonly workspaceRoot: string;
  /** Most sessions open at once. Default 8. */
  readonly maxSessions?: number;
  /** A session with no input or output for this long is closed by {@link TerminalManager.reapIdle}. Default 30 min. */
  readonly idleTimeoutMs?: number;
  /** Bytes of raw output kept per session. Default 256 KiB. */
  readonly ringBytes?: number;
  /** Default shell (a name on PATH or an absolute path). Default `bash`, else `sh`. */
  readonly shell?: string;
  /**
   * This replica's name: session ids start with it (`<replica>.t-<32 hex>`), so a load balancer
   * routes the calls that name a session back here. Default none (`t-<32 hex>`).
   */
  readonly replicaName?: string;
  /** Base environment, scrubbed of secrets before a shell sees it. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /**
   * When false the whole environment is passed; by default shells get only the allow-list of
   * `approvedEnvironment` (PATH, HOME, locale, terminal …) and {@link passEnvironment}.
   */
  readonly scrubEnvironment?: boolean;
  /** More variables shells receive (`JAVA_HOME` …); credential names and values stay withheld. */
  readonly passEnvironment?: readonly string[];
  /** Root filesystem used by sessions with backend `proot`; undefined disables that backend. */
  readonly rootfsDir?: string;
  /** Which sessions run inside the OS sandbox. Default `optional`. */
  readonly sandbox?: TerminalSandboxMode;
  /** The bubblewrap executable. Default: `bwrap` on PATH. */
  readonly sandboxExecutable?: string;
  /** Clock in ms since the epoch (idle reaping). Default `Date.now`. */
  readonly now?: () => number;
}

/** What {@link TerminalManager.create} needs. */
export interface CreateSessionOptions {
  /** Shell name or path; default the manager's shell. */
  readonly shell?: string;
  /** Absolute working directory, already confined to the workspace. */
  readonly cwd: string;
  readonly cols: number;
  readonly rows: number;
  readonly backend: SessionBackend;
  /**
   * The principal and client session that open it (`handleOwnerOf(context)`): only a call of that
   * same pair can list, read, type into, resize, signal or close it, and
   * {@link TerminalManager.endSession} closes it when that client session ends.
   */
  readonly owner: HandleOwner;
  /**
   * Run the shell inside the OS sandbox (local backend only). Default false; refused when the
   * manager's sandbox mode does not allow the choice or bubblewrap cannot start.
   */
  readonly sandbox?: boolean;
}

/**
 * Why a session could not be created: `sandbox_off` a sandbox was asked for where it is turned
 * off, `sandbox_required` an unsandboxed session was asked for where every session is sandboxed,
 * `sandbox_unavailable` bubblewrap cannot start. `field` names the argument at fault.
 */
export type SessionCreateFailure =
  | 'limit'
  | 'shell'
  | 'backend'
  | 'pty'
  | 'sandbox_off'
  | 'sandbox_required'
  | 'sandbox_unavailable';

/** Why a session could not be created; `field` names the argument at fault. */
export class SessionCreateError extends Error {
  constructor(
    message: string,
    readonly reason: SessionCreateFailure,
    readonly field?: string,
    /** For `shell`: the shells that may start here, by name. */
    readonly available?: readonly string[],
  ) {
    super(message);
    this.name = 'SessionCreateError';
  }
}

const DEFAULT_MAX_SESSIONS = 8;
const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_RING_BYTES = 256 * 1024;
const PROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Folders the sandbox binds read-only: a sandboxed shell must live in one of them. */
const SANDBOX_SHELL_FOLDERS = ['/usr/', '/bin/', '/sbin/'];

/** Owns the terminal sessions of a deployment: limits, idle reaping, and shutdown. */
export class TerminalManager {
  readonly workspaceRoot: string;
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly ringBytes: number;
  readonly rootfsDir: string | undefined;
  readonly sandboxMode: TerminalSandboxMode;
  private readonly sessions = new Map<string, TerminalSession>();
  /** The init file of each session (emptied by its shell as it starts; removed at close). */
  private readonly inits = new Map<string, ShellInit>();
  private readonly options: TerminalManagerOptions;
  private readonly now: () => number;
  private reaper: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(options: TerminalManagerOptions) {
    this.options = options;
    this.workspaceRoot = options.workspaceRoot;
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.ringBytes = options.ringBytes ?? DEFAULT_RING_BYTES;
    this.rootfsDir = options.rootfsDir;
    this.sandboxMode = options.sandbox ?? 'optional';
    this.now = options.now ?? Date.now;
  }

  /** Open sessions of every client session, oldest first (the deployment's view; tools use {@link listOwned}). */
  list(): TerminalSession[] {
    return [...this.sessions.values()];
  }

  /** This replica's name, in front of the session ids it mints; undefined when unnamed. */
  get replicaName(): string | undefined {
    return this.options.replicaName;
  }

  /** The session with this id whoever opened it, or undefined (tools use {@link getOwned}). */
  get(id: string): TerminalSession | undefined {
    return this.sessions.get(id);
  }

  /** Open sessions that `owner` (a principal in one client session) opened, oldest first. */
  listOwned(owner: HandleOwner): TerminalSession[] {
    return this.list().filter((session) => isHandleOwner(session.owner, owner));
  }

  /**
   * The session with this id when `owner` (the same principal in the same client session) opened
   * it; undefined for an id of another principal or client session exactly as for an id that
   * does not exist.
   */
  getOwned(id: string, owner: HandleOwner): TerminalSession | undefined {
    const session = this.sessions.get(id);
    return session !== undefined && isHandleOwner(session.owner, owner) ? session : undefined;
  }

  /** Closes every session opened in the client session `sessionId` (its MCP session ended). */
  async endSession(sessionId: string): Promise<void> {
    const ended = this.list().filter((session) => session.owner.session === sessionId);
    await Promise.all(ended.map((session) => this.close(session.id)));
  }

  /** Whether sandboxed sessions can start (bubblewrap probed once per process). */
  async sandboxStatus(): Promise<TerminalSandboxStatus> {
    const mode = this.sandboxMode;
    if (mode === 'off') {
      return {
        mode,
        available: false,
        reason: 'the terminal sandbox is turned off (packages.platform-terminal.sandbox = "off")',
      };
    }
    const status = await this.probeSandbox();
    return { mode, available: status.available, reason: status.reason };
  }

  /** Starts a shell on a new PTY. Throws {@link SessionCreateError} for expected refusals. */
  async create(options: CreateSessionOptions): Promise<TerminalSession> {
    if (this.disposed) throw new SessionCreateError('the terminal manager is shut down', 'pty');
    const sandboxed = options.sandbox === true;
    if (sandboxed && this.sandboxMode === 'off') {
      throw new SessionCreateError(
        'a sandboxed session was asked for, but the terminal sandbox is turned off in this deployment',
        'sandbox_off',
        'sandbox',
      );
    }
    if (!sandboxed && this.sandboxMode === 'required') {
      throw new SessionCreateError(
        'an unsandboxed session was asked for, but this deployment runs every terminal session in the sandbox',
        'sandbox_required',
        'sandbox',
      );
    }
    if (sandboxed && options.backend !== 'local') {
      throw new SessionCreateError(
        'the sandbox runs local shells only, not the proot rootfs',
        'backend',
        'backend',
      );
    }
    if (this.sessions.size >= this.maxSessions) {
      throw new SessionCreateError(
        `the limit of ${this.maxSessions} open sessions is reached`,
        'limit',
      );
    }
    const sandbox = sandboxed ? await this.probeSandbox() : undefined;
    if (sandbox !== undefined && (!sandbox.available || sandbox.executable === undefined)) {
      throw new SessionCreateError(
        `the terminal sandbox cannot start: ${sandbox.reason}`,
        'sandbox_unavailable',
        'sandbox',
      );
    }
    const base = this.options.environment ?? process.env;
    // What the user approves is a command, not the server's tokens: an allow-list of variables.
    const env =
      this.options.scrubEnvironment === false
        ? Object.fromEntries(
            Object.entries(base).filter(
              (entry): entry is [string, string] => entry[1] !== undefined,
            ),
          )
        : approvedEnvironment(base, { pass: this.options.passEnvironment ?? [] });
    // Unguessable: an id is no handle on another client's session (ownership is checked too).
    const id = mintHandle('t', this.options.replicaName);
    const markKey = newMarkKey();
    const marker = `TOOLSYS_TERMINAL_SESSION=${randomBytes(12).toString('hex')}`;
    const markerName = marker.slice(0, marker.indexOf('='));
    const markerValue = marker.slice(marker.indexOf('=') + 1);
    const shellWanted = options.shell ?? this.options.shell;
    let file: string;
    let args: string[];
    let shellName: string;
    let integration: ShellIntegration;
    let cwd = options.cwd;
    /** Options of bubblewrap before the shell's path, when sandboxed. */
    let sandboxOptionCount: number | undefined;
    let init: ShellInit;
    let sessionEnv: Record<string, string> = {
      ...withoutStartupCode(env),
      TERM: 'xterm-256color',
      [markerName]: markerValue,
    };
    if (options.backend === 'proot') {
      const rootfs = this.rootfsDir;
      if (rootfs === undefined || !(await isDirectory(rootfs))) {
        throw new SessionCreateError(
          'no Linux rootfs is ready for the proot backend',
          'backend',
          'backend',
        );
      }
      const proot = await findProgram('proot', base);
      if (proot === undefined) {
        throw new SessionCreateError('proot is not installed', 'backend', 'backend');
      }
      const inner = await pickRootfsShell(rootfs, shellWanted);
      if (inner === undefined) {
        throw new SessionCreateError(
          shellWanted === undefined
            ? 'the rootfs has neither /bin/bash nor /bin/sh'
            : `shell "${shellWanted}" is not a shell listed in the rootfs's /etc/shells`,
          'shell',
          'shell',
        );
      }
      file = proot;
      shellName = basename(inner);
      integration = integrationOf(shellName);
      await ensureRootfsTmp(rootfs);
      init = await writeShellInit({
        shellName,
        integration,
        markKey,
        place: { kind: 'rootfs', rootfs },
      });
      args = [
        ...prootRootArguments(rootfs),
        '-b',
        `${options.cwd}:/workspace`,
        '-w',
        '/workspace',
        inner,
        ...init.args,
      ];
      sessionEnv = { ...sessionEnv, PATH: PROOT_PATH, HOME: '/root' };
      cwd = options.cwd;
    } else {
      const wanted = shellWanted ?? ((await findProgram('bash', base)) ? 'bash' : 'sh');
      // Only a login shell starts: any other program would run without the per-input
      // confirmation that commands typed into the session get.
      const shell = await resolveShell(wanted, base);
      if (!shell.ok) {
        throw new SessionCreateError(shell.reason, 'shell', 'shell', shell.available);
      }
      const found = shell.path;
      file = found;
      shellName = shell.name;
      integration = integrationOf(shellName);
      args = [];
      if (sandbox?.executable !== undefined) {
        const real = await realpath(found);
        if (!SANDBOX_SHELL_FOLDERS.some((folder) => real.startsWith(folder))) {
          throw new SessionCreateError(
            `shell "${wanted}" is outside the system folders (/usr, /bin, /sbin) that the sandbox can see`,
            'shell',
            'shell',
          );
        }
        // The PTY is the session's own and nothing outside the sandbox reads it, so the shell
        // keeps it as its controlling terminal (job control, and the foreground group that the
        // state detection reads).
        const sandboxArguments = await buildSandboxArguments({
          workspaceRoot: await realpath(this.workspaceRoot),
          cwd: await realpath(options.cwd),
          executable: sandbox.executable,
          gitWrapper: await prepareGitWrapper(),
          newSession: false,
          // Every variable the shell would start with is judged by the sandbox's allow-list.
          environment: sessionEnv,
        });
        file = sandbox.executable;
        args = [...sandboxArguments, found];
        // The session's --setenv options go before the limit launcher that ends the list.
        sandboxOptionCount = sandboxArguments.length - SANDBOX_LAUNCHER_ARGUMENTS;
      }
      init = await writeShellInit({
        shellName,
        integration,
        markKey,
        place: { kind: sandbox?.executable === undefined ? 'local' : 'sandbox' },
      });
      args.push(...init.args);
    }
    // The mark key is in the init file only, never in the environment (children read that).
    if (integration === 'bash') {
      sessionEnv = { ...sessionEnv, ...init.env, PS1: '\\W\\$ ', HISTFILE: '' };
    } else if (integration === 'prompt') {
      sessionEnv = { ...sessionEnv, ...init.env, HISTFILE: '' };
    } else {
      sessionEnv = { ...sessionEnv, PS1: '$ ' };
    }
    if (sandboxOptionCount !== undefined) {
      // The session's own variables are set inside the sandbox explicitly, so that they reach the
      // shell even where the sandbox starts from an empty or allow-listed environment.
      args.splice(
        sandboxOptionCount,
        0,
        ...init.sandboxArguments,
        ...setenvArguments(sessionEnv, SANDBOXED_SESSION_VARIABLES),
      );
    }
    let session: TerminalSession;
    try {
      session = TerminalSession.start({
        id,
        file,
        args,
        cwd,
        env: sessionEnv,
        cols: options.cols,
        rows: options.rows,
        ringBytes: this.ringBytes,
        integration,
        backend: options.backend,
        sandboxed,
        shellName,
        marker,
        markKey,
        owner: options.owner,
        now: this.now,
      });
    } catch (error) {
      await init.dispose();
      throw new SessionCreateError(
        `could not open a PTY: ${error instanceof Error ? error.message : String(error)}`,
        'pty',
      );
    }
    this.sessions.set(id, session);
    this.inits.set(id, init);
    return session;
  }

  private probeSandbox(): Promise<CommandSandboxStatus> {
    const executable = this.options.sandboxExecutable;
    return probeCommandSandbox(executable === undefined ? {} : { executable });
  }

  /** Closes a session (its whole process group) and forgets it. False when unknown. */
  async close(id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (session === undefined) return false;
    this.sessions.delete(id);
    await session.close();
    await this.inits.get(id)?.dispose();
    this.inits.delete(id);
    return true;
  }

  /** Closes sessions idle longer than the idle timeout; returns their ids. */
  async reapIdle(): Promise<string[]> {
    const now = this.now();
    const idle = this.list().filter((session) => now - session.lastActivity >= this.idleTimeoutMs);
    await Promise.all(idle.map((session) => this.close(session.id)));
    return idle.map((session) => session.id);
  }

  /** Checks for idle sessions every `intervalMs` (unref'd timer). Default a tenth of the timeout, at most 1 min. */
  startReaper(intervalMs = Math.min(60_000, Math.max(1_000, this.idleTimeoutMs / 10))): void {
    if (this.reaper !== undefined || this.disposed) return;
    this.reaper = setInterval(() => {
      void this.reapIdle();
    }, intervalMs);
    this.reaper.unref();
  }

  /** Closes every session and stops the reaper; later creates are refused. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.reaper !== undefined) clearInterval(this.reaper);
    this.reaper = undefined;
    await Promise.all(this.list().map((session) => this.close(session.id)));
  }
}

/** Variables of a session that its shell needs inside the sandbox (integration, marker, terminal). */
const SANDBOXED_SESSION_VARIABLES = [
  'TERM',
  'PS1',
  'HISTFILE',
  'ENV',
  'ZDOTDIR',
  'TOOLSYS_TERMINAL_SESSION',
];

function setenvArguments(env: Record<string, string>, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const value = env[name];
    return value === undefined ? [] : ['--setenv', name, value];
  });
}

const PROMPT_SHELLS = new Set(['sh', 'dash', 'ash', 'busybox', 'zsh']);

function integrationOf(shellName: string): ShellIntegration {
  if (shellName === 'bash') return 'bash';
  return PROMPT_SHELLS.has(shellName) ? 'prompt' : 'none';
}

/**
 * Variables that make a shell run a file or a command as it starts (`ENV` for an interactive sh
 * or dash, `BASH_ENV` for bash scripts, exported bash functions): sessions start as clean as
 * `bash --norc`. PROMPT_COMMAND is set again by the bash integration.
 */
const STARTUP_CODE_VARIABLES = new Set(['ENV', 'BASH_ENV', 'PROMPT_COMMAND', 'PS0', 'ZDOTDIR']);

function withoutStartupCode(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !STARTUP_CODE_VARIABLES.has(name) && !name.startsWith('BASH_FUNC_'),
    ),
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

async function pickRootfsShell(
  rootfs: string,
  wanted: string | undefined,
): Promise<string | undefined> {
  if (wanted !== undefined) {
    // A shell named by the caller must be one the rootfs lists, as on the host.
    const listed = await findRootfsListedShell(rootfs, wanted);
    return listed !== undefined && (await isRootfsFile(rootfs, listed)) ? listed : undefined;
  }
  for (const candidate of ['/bin/bash', '/bin/sh']) {
    // Looked up as inside the rootfs (`/bin` is often a link to `usr/bin`).
    if (await isRootfsFile(rootfs, candidate)) return candidate;
  }
  return undefined;
}

/**
 * The rootfs keeps its own `/tmp` (the host's is not bound): made, world-writable and sticky as
 * usual, when the rootfs has none. A link there is left alone: proot resolves it inside.
 */
async function ensureRootfsTmp(rootfs: string): Promise<void> {
  const path = join(rootfs, 'tmp');
  if ((await lstat(path).catch(() => undefined)) !== undefined) return;
  await mkdir(path, { mode: 0o1777 }).catch(() => undefined);
  await chmod(path, 0o1777).catch(() => undefined);
}
