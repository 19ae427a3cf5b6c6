/**
 * Resource limits of a sandbox: the defaults, the launcher that sets the rlimits before the command
 * runs, and the pids cgroup each sandbox gets where the cgroup file system is writable.
 */
import { constants, readdirSync, rmdirSync } from 'node:fs';
import { access, mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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
 * How many arguments at the end of {@link buildSandboxArguments}'s list are the limit launcher
 * (the program bwrap starts, which then runs the command). A caller adding bwrap options of its
 * own (`--setenv …`) inserts them before these.
 */
export const SANDBOX_LAUNCHER_ARGUMENTS = 6;

/** Where a sandbox's own cgroup.procs is bound, so that its launcher can join the cgroup. */
export const CGROUP_PROCS = '/run/toolsys/cgroup.procs';

/**
 * The launcher the command runs under: joins the sandbox's pids cgroup when there is one, sets
 * the rlimits as hard limits (nothing inside can raise them), then replaces itself with the
 * command. RLIMIT_NPROC binds only a user other than root; the cgroup binds every user.
 */
export function limitLauncher(limits: SandboxLimits, cgroup: boolean): string[] {
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
export async function createPidsCgroup(processes: number): Promise<string | undefined> {
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
