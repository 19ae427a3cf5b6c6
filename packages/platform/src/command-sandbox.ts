import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { constants, readdirSync, rmdirSync, rmSync } from 'node:fs';
import {
  access,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rmdir,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { containsSecretShape } from '@toolsys/core-tool-registry/text';

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

/** Whether commands can run inside the OS sandbox, and why not when they cannot. */
export interface CommandSandboxStatus {
  /** True when `bwrap` was found and a probe command ran inside it. */
  available: boolean;
  /** One sentence: what was found, or why the sandbox cannot start and what to install. */
  reason: string;
  /** The `bwrap` executable used, when found. */
  executable?: string;
}

/** Options for {@link probeCommandSandbox}. */
export interface ProbeCommandSandboxOptions {
  /** The `bwrap` executable. Default: `bwrap` found on PATH. */
  executable?: string;
  /** Run the probe again instead of returning the cached answer. Default false. */
  refresh?: boolean;
}

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

/** Resource limits of one sandbox. */
export interface SandboxLimits {
  /** Size of the tmpfs mounted at /tmp (and HOME), in bytes. */
  tmpBytes: number;
  /**
   * Processes and threads at once. Enforced by a pids cgroup of its own when the cgroup file
   * system is writable (the only limit that binds root), and by RLIMIT_NPROC in a user namespace.
   */
  processes: number;
  /** CPU seconds of each process (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space of each process (RLIMIT_AS), in bytes. */
  addressSpaceBytes: number;
  /** Largest file a process may write (RLIMIT_FSIZE), in bytes. */
  fileBytes: number;
  /** Open files of each process (RLIMIT_NOFILE). */
  openFiles: number;
}

/** The default limits of a sandbox. */
export const SANDBOX_LIMITS: Readonly<SandboxLimits> = {
  tmpBytes: 256 * 1024 * 1024,
  processes: 256,
  cpuSeconds: 600,
  addressSpaceBytes: 4 * 1024 * 1024 * 1024,
  fileBytes: 1024 * 1024 * 1024,
  openFiles: 1024,
};

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

/** Where the real git is bound inside the sandbox, beside the wrapper that replaces it. */
const REAL_GIT = '/run/toolsys/git';

/**
 * The git wrapper: runs the real git with every repository-controlled executable disabled
 * (fsmonitor, pager, hooks, external diff and textconv drivers, clean/smudge filters, signature
 * programs), so that a `.git/config` written earlier cannot make `git status` run a program.
 */
const GIT_WRAPPER = `#!/bin/sh
real=${REAL_GIT}
case "$1" in
  diff|log|show) sub=$1; shift; set -- "$sub" --no-ext-diff --no-textconv "$@" ;;
  blame) shift; set -- blame --no-textconv "$@" ;;
esac
drivers=$("$real" -c core.fsmonitor=false config --name-only --get-regexp '^filter\\..*\\.(clean|smudge|process)$' 2>/dev/null | sed -n 's/^filter\\.\\(.*\\)\\.[a-z]*$/\\1/p' | sort -u)
old_ifs=$IFS
IFS='
'
for driver in $drivers; do
  set -- -c "filter.$driver.clean=" -c "filter.$driver.smudge=" -c "filter.$driver.process=" -c "filter.$driver.required=false" "$@"
done
IFS=$old_ifs
exec "$real" -c core.fsmonitor=false -c core.pager=cat -c core.hooksPath=/dev/null \\
  -c diff.external= -c core.sshCommand=false -c core.askPass= -c credential.helper= \\
  -c log.showSignature=false -c gpg.program=false -c gpg.ssh.program=false \\
  -c gpg.x509.program=false -c protocol.allow=never -c core.alternateRefsCommand= "$@"
`;

/** Environment for git inside the sandbox: no system or user config, no pager. */
export const SANDBOX_GIT_ENVIRONMENT: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_NO_LAZY_FETCH: '1',
};

const probes = new Map<string, Promise<CommandSandboxStatus>>();
let gitWrapperPromise: Promise<string> | undefined;

async function findOnPath(name: string): Promise<string | undefined> {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * Writes the git wrapper and returns its path. The file lives in one folder per user and per
 * wrapper version under the temp directory, shared by every process, so a server stopped by a
 * signal leaves nothing new behind. The folder is used only when it is a real directory owned by
 * this user that nobody else can write to; otherwise the wrapper goes to a private temp folder
 * removed when the process exits.
 */
export function prepareGitWrapper(): Promise<string> {
  gitWrapperPromise ??= writeGitWrapper(tmpdir()).catch((error: unknown) => {
    gitWrapperPromise = undefined;
    throw error;
  });
  return gitWrapperPromise;
}

/** {@link prepareGitWrapper} under `root`, without the per-process cache; exported for tests. */
export async function writeGitWrapper(root: string): Promise<string> {
  const version = createHash('sha256').update(GIT_WRAPPER).digest('hex').slice(0, 12);
  const uid = process.getuid?.();
  if (uid !== undefined) {
    const folder = join(root, `toolsys-sandbox-${uid}-${version}`);
    await mkdir(folder, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    if (await isPrivateFolder(folder, uid)) {
      const file = join(folder, 'git');
      if ((await readFile(file, 'utf8').catch(() => undefined)) === GIT_WRAPPER) return file;
      // Written beside and renamed, so a concurrent process never runs a half-written file.
      const partial = join(folder, `git.${process.pid}.${randomBytes(4).toString('hex')}`);
      await writeFile(partial, GIT_WRAPPER, { mode: 0o555, flag: 'wx' });
      await rename(partial, file);
      return file;
    }
  }
  const folder = await mkdtemp(join(root, 'toolsys-sandbox-'));
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  const file = join(folder, 'git');
  await writeFile(file, GIT_WRAPPER, { mode: 0o555, flag: 'wx' });
  return file;
}

/** A directory (not a link) owned by `uid` that no other user can write to. */
async function isPrivateFolder(folder: string, uid: number): Promise<boolean> {
  const stats = await lstat(folder).catch(() => undefined);
  return stats?.isDirectory() === true && stats.uid === uid && (stats.mode & 0o022) === 0;
}

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

/**
 * How many arguments at the end of {@link buildSandboxArguments}'s list are the limit launcher
 * (the program bwrap starts, which then runs the command). A caller adding bwrap options of its
 * own (`--setenv …`) inserts them before these.
 */
export const SANDBOX_LAUNCHER_ARGUMENTS = 6;

/** Where a sandbox's own cgroup.procs is bound, so that its launcher can join the cgroup. */
const CGROUP_PROCS = '/run/toolsys/cgroup.procs';

/**
 * The launcher the command runs under: joins the sandbox's pids cgroup when there is one, sets
 * the rlimits as hard limits (nothing inside can raise them), then replaces itself with the
 * command. RLIMIT_NPROC binds only a user other than root; the cgroup binds every user.
 */
function limitLauncher(limits: SandboxLimits, cgroup: boolean): string[] {
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  // Each limit is set as soft and hard limit; where the hard limit is already lower, it stays.
  const limit =
    'l() { ulimit -S -H "$1" "$2" 2>/dev/null || { h=$(ulimit -H "$1"); [ "$h" != unlimited ] && [ "$h" -le "$2" ]; } || { echo "toolsys sandbox: cannot set limit $1" >&2; exit 126; }; }';
  const script = [
    limit,
    cgroup ? `echo $$ > ${CGROUP_PROCS} 2>/dev/null` : ':',
    `l -u ${limits.processes}`,
    `l -t ${limits.cpuSeconds}`,
    `l -v ${kib(limits.addressSpaceBytes)}`,
    `l -f ${kib(limits.fileBytes)}`,
    `l -n ${limits.openFiles}`,
    'l -c 0',
    'unset -f l',
    'exec "$@"',
  ].join('; ');
  return ['/bin/bash', '--norc', '--noprofile', '-c', script, 'toolsys-sandbox'];
}

let cgroupRoot: Promise<string | undefined> | undefined;
let cgroupCount = 0;
const CGROUP_PREFIX = 'toolsys-sandbox-';

/** The pids cgroup folder this process may create children in, or undefined. */
function findPidsCgroup(): Promise<string | undefined> {
  cgroupRoot ??= (async () => {
    if (process.platform !== 'linux') return undefined;
    const lines = (await readFile('/proc/self/cgroup', 'utf8').catch(() => '')).split('\n');
    const candidates: string[] = [];
    for (const line of lines) {
      const [, controllers, path] = line.split(':');
      if (path === undefined) continue;
      if (controllers?.split(',').includes('pids'))
        candidates.push(join('/sys/fs/cgroup/pids', path));
      else if (controllers === '') candidates.push(join('/sys/fs/cgroup', path));
    }
    for (const folder of candidates) {
      try {
        await access(folder, constants.W_OK);
        const probe = join(folder, `${CGROUP_PREFIX}${process.pid}-probe`);
        await mkdir(probe).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        const usable = await access(join(probe, 'pids.max'), constants.W_OK).then(
          () => true,
          () => false,
        );
        await rmdir(probe).catch(() => undefined);
        if (usable) {
          process.once('exit', () => removeOwnCgroups(folder));
          return folder;
        }
      } catch {
        // Not writable here: the rlimits are what is left.
      }
    }
    return undefined;
  })();
  return cgroupRoot;
}

/**
 * How the process limit of a sandbox is enforced here: `cgroup` (a pids cgroup of its own, binds
 * every user), `rlimit` (RLIMIT_NPROC in the sandbox's user namespace, binds a user other than
 * root) or `none` (a server running as root where no pids cgroup can be created).
 */
export async function sandboxProcessLimit(): Promise<'cgroup' | 'rlimit' | 'none'> {
  if ((await findPidsCgroup()) !== undefined) return 'cgroup';
  return process.getuid?.() === 0 ? 'none' : 'rlimit';
}

/** Removes the empty cgroups this process (or a process that has ended) left behind. */
function removeOwnCgroups(folder: string): void {
  try {
    for (const name of readdirSync(folder)) {
      if (name.startsWith(`${CGROUP_PREFIX}${process.pid}-`)) {
        try {
          rmdirSync(join(folder, name));
        } catch {
          // Still in use or gone.
        }
      }
    }
  } catch {
    // Nothing to clean.
  }
}

async function sweepCgroups(folder: string): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith(CGROUP_PREFIX))
      .filter((name) => {
        const owner = Number(name.slice(CGROUP_PREFIX.length).split('-')[0]);
        return owner === process.pid || !isAlive(owner);
      })
      // Only an empty cgroup can be removed; one still in use stays.
      .map((name) => rmdir(join(folder, name)).catch(() => undefined)),
  );
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A pids cgroup of its own for one sandbox, with `pids.max` set; undefined where cgroups cannot
 * be written (then RLIMIT_NPROC is the only process limit). Empty ones are removed at the next
 * sandbox and when this process exits.
 */
async function createPidsCgroup(processes: number): Promise<string | undefined> {
  const root = await findPidsCgroup();
  if (root === undefined) return undefined;
  await sweepCgroups(root);
  cgroupCount += 1;
  const folder = join(root, `${CGROUP_PREFIX}${process.pid}-${cgroupCount}`);
  try {
    await mkdir(folder);
    await writeFile(join(folder, 'pids.max'), String(processes));
    return folder;
  } catch {
    await rmdir(folder).catch(() => undefined);
    return undefined;
  }
}

function runProbe(executable: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    let output = '';
    let errors = '';
    const child = spawn(executable, [...args, '/bin/sh', '-c', 'echo sandbox-ok'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: SANDBOX_PATH },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && output.trim() === 'sandbox-ok') resolve(undefined);
      else resolve(errors.trim().split('\n')[0] || `exit code ${code}`);
    });
  });
}

/**
 * Checks once per process whether commands can run in the OS sandbox: finds `bwrap` and runs a
 * probe command inside the same namespaces and mounts real calls use. The answer says why not
 * (not installed, no permission for namespaces …) so that `toolsys doctor` can show it. Without
 * the sandbox, `shell_execute` asks before every command.
 */
export function probeCommandSandbox(
  options: ProbeCommandSandboxOptions = {},
): Promise<CommandSandboxStatus> {
  const key = options.executable ?? '';
  const cached = probes.get(key);
  if (cached !== undefined && options.refresh !== true) return cached;
  const probe = (async (): Promise<CommandSandboxStatus> => {
    if (process.platform !== 'linux') {
      return { available: false, reason: 'the command sandbox (bubblewrap) needs Linux' };
    }
    const executable = options.executable ?? (await findOnPath('bwrap'));
    if (
      options.executable !== undefined &&
      !(await access(options.executable, constants.X_OK).then(
        () => true,
        () => false,
      ))
    ) {
      return {
        available: false,
        reason: `bubblewrap was configured at ${options.executable}, but nothing executable is there`,
      };
    }
    if (executable === undefined) {
      return {
        available: false,
        reason:
          'bubblewrap (bwrap) is not installed: install the "bubblewrap" package so that read-only commands can run without asking',
      };
    }
    const root = await realpath(tmpdir());
    const args = await buildSandboxArguments({ workspaceRoot: root, cwd: root, executable });
    const failure = await runProbe(executable, args);
    if (failure !== undefined) {
      return {
        available: false,
        executable,
        reason: `bubblewrap is installed but cannot start a sandbox here (${failure}); allow unprivileged user namespaces or run as a user that may create them`,
      };
    }
    return {
      available: true,
      executable,
      reason: 'bubblewrap runs read-only commands without network in their own PID namespace',
    };
  })();
  probes.set(key, probe);
  return probe;
}
