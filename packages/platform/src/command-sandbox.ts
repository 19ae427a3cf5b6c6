/**
 * The command sandbox's `bwrap` argument vector and the environment a sandboxed command sees. The
 * probe lives in sandbox-probe.ts, the resource limits in sandbox-limits.ts, the git wrapper in
 * sandbox-git-wrapper.ts.
 */
import { lstat, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { containsSecretShape } from '@toolsys/core-tool-registry/text';
import { REAL_GIT, SANDBOX_GIT_ENVIRONMENT } from './sandbox-git-wrapper.js';
import {
  CGROUP_PROCS,
  createPidsCgroup,
  limitLauncher,
  SANDBOX_LIMITS,
  type SandboxLimits,
} from './sandbox-limits.js';

/*
 * Why bubblewrap used directly, and not a library such as `@anthropic-ai/sandbox-runtime` (0.0.83
 * when this was written): that runtime also drives bubblewrap on Linux, but it requires Node
 * >= 22.12 (this project runs on Node 20), depends on zod 3 (the workspace keeps exactly one zod,
 * version 4), and is built around an HTTP/SOCKS proxy that filters network hosts plus a settings
 * file of allowed paths, with helper processes for the proxy. Auto-allowed commands need less and
 * stricter: no network at all, a read-only workspace, a fresh PID namespace and a minimal /etc.
 * That is one `bwrap` argument vector, readable in full here and tested against the real binary.
 * Where `bwrap` is missing or fails the probe, nothing runs without asking.
 */

/** Options for {@link buildSandboxArguments}. */
export interface SandboxArgumentsOptions {
  /** The workspace root (real path): bound read-only. */
  workspaceRoot: string;
  /** Working directory of the command (real path, inside the workspace). */
  cwd: string;
  /** The `bwrap` executable. */
  executable: string;
  /** The git wrapper script bound over `/usr/bin/git` (from {@link prepareGitWrapper}). */
  gitWrapper?: string;
  /** More folders bound read-only at their own path (e.g. an installed skill). Default none. */
  readOnlyPaths?: readonly string[];
  /**
   * Whether the command starts a new terminal session (`--new-session`), detached from the
   * controlling terminal so that it cannot push input into a terminal outside the sandbox
   * (TIOCSTI). Default true. False only when the terminal is a PTY of the sandbox's own that no
   * process outside the sandbox reads: an interactive shell needs it as its controlling terminal
   * for job control.
   */
  newSession?: boolean;
  /**
   * The environment the sandbox process is started with (default `process.env`): every variable
   * of it that is not on the allow-list ({@link sandboxEnvironment}) is removed inside the sandbox,
   * whatever its name or value. Variables the caller adds beyond it pass.
   */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Resource limits; each defaults to {@link SANDBOX_LIMITS}. */
  limits?: Partial<SandboxLimits>;
}

/**
 * Names of the host variables a sandboxed command may see (with `LC_*`): locale, terminal, time
 * zone and user name. Everything else of the host environment (tokens, connection strings, URLs
 * with passwords, webhooks …, whatever they are called) stays outside.
 */
export const SANDBOX_ENVIRONMENT_NAMES: ReadonlySet<string> = new Set([
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TZ',
  'USER',
  'LOGNAME',
  'COLUMNS',
  'LINES',
]);

/** Variables every sandbox sets itself. */
function fixedEnvironment(): Record<string, string> {
  return { HOME: '/tmp', TMPDIR: '/tmp', PATH: SANDBOX_PATH, ...SANDBOX_GIT_ENVIRONMENT };
}

/**
 * The environment of a sandboxed command, from the host's: only the allow-listed names
 * ({@link SANDBOX_ENVIRONMENT_NAMES}, `LC_*`) whose values do not look like a credential, plus a
 * harmless HOME/TMPDIR, the sandbox PATH and the git settings.
 */
export function sandboxEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isAllowedVariable(name)) continue;
    if (containsSecretShape(value)) continue;
    kept[name] = value;
  }
  return { ...kept, ...fixedEnvironment() };
}

function isAllowedVariable(name: string): boolean {
  return SANDBOX_ENVIRONMENT_NAMES.has(name) || /^LC_[A-Z]+$/.test(name);
}

/** PATH inside the sandbox: only the bound system directories. */
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

/** Files of /etc commands need; nothing holding secrets (shadow, ssh keys, sudoers …). */
const ETC_FILES = [
  'passwd',
  'group',
  'nsswitch.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'alternatives',
  'magic',
  'magic.mime',
  'mime.types',
  'os-release',
  'debian_version',
  'terminfo',
  'hostname',
  'hosts',
  'locale.alias',
  'inputrc',
];

/** Top-level system directories bound read-only (or re-created as the same symlink). */
const SYSTEM_DIRECTORIES = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

async function systemDirectoryArguments(): Promise<string[]> {
  const args: string[] = [];
  for (const directory of SYSTEM_DIRECTORIES) {
    const stats = await lstat(directory).catch(() => undefined);
    if (stats === undefined) continue;
    if (stats.isSymbolicLink()) args.push('--symlink', await readlink(directory), directory);
    else if (stats.isDirectory()) args.push('--ro-bind', directory, directory);
  }
  for (const name of ETC_FILES) {
    const path = `/etc/${name}`;
    if ((await lstat(path).catch(() => undefined)) !== undefined) {
      args.push('--ro-bind-try', path, path);
    }
  }
  return args;
}

/**
 * The `bwrap` argument vector (before the command) for an auto-allowed command: no network, own
 * user/PID/IPC/UTS namespaces ending with the call, all capabilities dropped, a fresh /proc and
 * /dev, a size-limited tmpfs /tmp, /usr and the library folders read-only, a minimal /etc, the
 * workspace read-only at its own path, only allow-listed environment variables, and resource
 * limits ({@link SANDBOX_LIMITS}): the vector ends with a small launcher that applies the limits
 * and then runs the command the caller appends.
 */
export async function buildSandboxArguments(options: SandboxArgumentsOptions): Promise<string[]> {
  const limits = { ...SANDBOX_LIMITS, ...options.limits };
  const cgroup = await createPidsCgroup(limits.processes);
  const args = [
    '--die-with-parent',
    ...(options.newSession === false ? [] : ['--new-session']),
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/usr',
    '/usr',
    ...(await systemDirectoryArguments()),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--size',
    String(limits.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--size',
    String(16 * 1024 * 1024),
    '--tmpfs',
    '/run',
    '--dir',
    '/run/toolsys',
  ];
  if (cgroup !== undefined) args.push('--bind', join(cgroup, 'cgroup.procs'), CGROUP_PROCS);
  if (options.gitWrapper !== undefined && (await stat('/usr/bin/git').catch(() => null))) {
    args.push(
      '--ro-bind',
      '/usr/bin/git',
      REAL_GIT,
      '--ro-bind',
      options.gitWrapper,
      '/usr/bin/git',
    );
  }
  for (const path of options.readOnlyPaths ?? []) args.push('--ro-bind', path, path);
  args.push('--ro-bind', options.workspaceRoot, options.workspaceRoot, '--chdir', options.cwd);
  // An allow-list: every host variable not on it is removed, whatever it is called (the
  // server's own `TOOLSYS_*` too). What a caller needs inside (a terminal session's prompt and
  // marker) it sets with `--setenv` after these.
  const host = options.environment ?? process.env;
  const allowed = sandboxEnvironment(host);
  for (const name of Object.keys(host)) {
    if (!(name in allowed)) args.push('--unsetenv', name);
  }
  for (const name of ['BASH_ENV', 'ENV', 'GIT_EXTERNAL_DIFF', 'GIT_DIR', 'GIT_WORK_TREE']) {
    if (!(name in host)) args.push('--unsetenv', name);
  }
  // Allow-listed variables pass as the caller set them; these are the sandbox's own.
  for (const [name, value] of Object.entries(fixedEnvironment())) {
    args.push('--setenv', name, value);
  }
  args.push(...limitLauncher(limits, cgroup !== undefined));
  return args;
}
