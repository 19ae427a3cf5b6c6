// Waiting for child processes to exit and stopping them by their pid.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Whether the child has already exited (with a code or a signal). */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Resolves once the child has exited, with the signal that ended it or else its exit code;
 * at once when it already has.
 */
export function waitForExit(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (hasExited(child)) return Promise.resolve(child.signalCode ?? child.exitCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
}

/** Options for {@link stopProcess}. */
export interface StopProcessOptions {
  /** The signal to send. Default `SIGTERM`. */
  signal?: NodeJS.Signals;
}

/**
 * Stops a child by its pid and waits for it to exit; does nothing when it has already exited.
 * The child is sent SIGCONT first, because a stopped (SIGSTOP) process would not act on SIGTERM.
 */
export async function stopProcess(
  child: ChildProcess,
  options: StopProcessOptions = {},
): Promise<void> {
  if (hasExited(child) || child.pid === undefined) return;
  const exited = waitForExit(child);
  try {
    process.kill(child.pid, 'SIGCONT');
    process.kill(child.pid, options.signal ?? 'SIGTERM');
  } catch {
    // Gone between the check and the signal: the exit event still comes.
  }
  await exited;
}

/**
 * Whether a process runs (Linux, from /proc): a zombie (ended, not yet reaped by its parent) and a
 * dead process do not.
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * The pid a process wrote to `file` (`echo $$ > file`), once the file holds one; throws after
 * `timeoutMs` (default 10 s).
 */
export async function readPidFile(file: string, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      // Not written yet.
    }
    if (/^\d+$/.test(text)) return Number(text);
    if (Date.now() > deadline) throw new Error(`no pid in ${file} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves with the ms it took `pid` to end; throws when it still runs after `timeoutMs`. */
export async function waitForPidGone(pid: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (isAlive(pid)) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`process ${pid} still runs after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return Date.now() - started;
}
