import { readdir, readFile, readlink, stat } from 'node:fs/promises';

/** The fields of `/proc/<pid>/stat` this package reads. */
export interface ProcessStat {
  readonly pid: number;
  /** Kernel state letter: R running, S sleeping, D disk sleep, T stopped, Z zombie … */
  readonly state: string;
  readonly parentPid: number;
  readonly processGroup: number;
  readonly sessionId: number;
  /** Foreground process group of the process's controlling terminal (-1 when none). */
  readonly terminalForegroundGroup: number;
}

/** Reads `/proc/<pid>/stat`; undefined when the process is gone. */
export async function readProcessStat(pid: number): Promise<ProcessStat | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or parentheses.
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '?',
    parentPid: Number(fields[1]),
    processGroup: Number(fields[2]),
    sessionId: Number(fields[3]),
    terminalForegroundGroup: Number(fields[5]),
  };
}

/** Every process visible in `/proc`. */
export async function listProcesses(): Promise<ProcessStat[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const stats = await Promise.all(
    entries.filter((name) => /^\d+$/.test(name)).map((name) => readProcessStat(Number(name))),
  );
  return stats.filter((stat): stat is ProcessStat => stat !== undefined);
}

// System call numbers that mean "waiting for input" when made on the terminal (x86_64, arm64).
const INPUT_SYSCALLS: Readonly<Record<string, { fdCalls: number[]; waitCalls: number[] }>> = {
  x64: { fdCalls: [0, 19], waitCalls: [7, 23, 232, 270, 271, 281, 441] },
  arm64: { fdCalls: [63, 65], waitCalls: [22, 72, 73, 441] },
};

/**
 * Whether `pid` is blocked waiting for input from the terminal `ttyPath`: asleep in `read` on a
 * descriptor that is that terminal, or in `poll`/`select`/`epoll` while its stdin is that terminal.
 * Undefined when the kernel does not tell (another architecture, no access).
 */
export async function isWaitingOnTerminal(
  pid: number,
  ttyPath: string,
): Promise<boolean | undefined> {
  const table = INPUT_SYSCALLS[process.arch];
  if (table === undefined) return undefined;
  let syscall: string;
  try {
    syscall = (await readFile(`/proc/${pid}/syscall`, 'latin1')).trim();
  } catch {
    return undefined;
  }
  if (syscall === 'running') return false;
  const [numberText, firstArgument] = syscall.split(' ');
  const number = Number(numberText);
  if (table.fdCalls.includes(number) && firstArgument !== undefined) {
    const fd = Number.parseInt(firstArgument, 16);
    return isTerminal(`/proc/${pid}/fd/${fd}`, ttyPath);
  }
  if (table.waitCalls.includes(number)) {
    return isTerminal(`/proc/${pid}/fd/0`, ttyPath);
  }
  return false;
}

/**
 * Whether the descriptor link `fdLink` is the terminal `ttyPath`: by path, or else by device
 * number, since a process in another mount namespace may reach the same PTY by another name (in
 * the sandbox, `/dev/tty` opens it as `/dev/console`).
 */
async function isTerminal(fdLink: string, ttyPath: string): Promise<boolean> {
  if ((await readlink(fdLink).catch(() => '')) === ttyPath) return true;
  const [opened, terminal] = await Promise.all([
    stat(fdLink).catch(() => undefined),
    stat(ttyPath).catch(() => undefined),
  ]);
  return (
    opened !== undefined &&
    terminal !== undefined &&
    opened.isCharacterDevice() &&
    terminal.isCharacterDevice() &&
    opened.rdev === terminal.rdev
  );
}

/** Whether `/proc/<pid>/environ` holds `NAME=value` exactly. */
export async function hasEnvironmentEntry(pid: number, entry: string): Promise<boolean> {
  try {
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1');
    return environ.split('\u0000').includes(entry);
  } catch {
    return false;
  }
}

/** Adds to `found` every process of `all` below one already in it (children of children too). */
export function addDescendants(all: readonly ProcessStat[], found: Set<number>): Set<number> {
  let grew = true;
  while (grew) {
    grew = false;
    for (const stat of all) {
      if (!found.has(stat.pid) && found.has(stat.parentPid)) {
        found.add(stat.pid);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * Every live process that belongs to a terminal session: its session, its descendants, and any
 * process carrying the session's environment marker (which finds `setsid` children that left
 * the session, unless they cleared their environment).
 */
export async function findSessionProcesses(leaderPid: number, marker: string): Promise<number[]> {
  const all = await listProcesses();
  const found = new Set<number>();
  for (const stat of all) {
    if (stat.sessionId === leaderPid || stat.pid === leaderPid) found.add(stat.pid);
  }
  addDescendants(all, found);
  const candidates = all.filter((stat) => !found.has(stat.pid) && stat.pid !== process.pid);
  const marked = await Promise.all(
    candidates.map(async (stat) => ((await hasEnvironmentEntry(stat.pid, marker)) ? stat.pid : 0)),
  );
  for (const pid of marked) if (pid > 0) found.add(pid);
  found.delete(process.pid);
  return [...found];
}
