import { AsyncLocalStorage } from 'node:async_hooks';
import { readdir, readFile } from 'node:fs/promises';

/**
 * Environment variable naming the task a process was started for: every process the platform
 * starts while a task runs (commands, terminal sessions) carries it, and so do their descendants,
 * so that cancelling the task ends them even when the tool that started them ignores its signal.
 */
export const TASK_MARK_VARIABLE = 'TOOLSYS_TASK_MARK';

const taskMarks = new AsyncLocalStorage<string>();

/** Runs `work` so that every process the platform starts within it (at any depth of awaits) carries `mark`. */
export function runWithTaskMark<T>(mark: string, work: () => T): T {
  return taskMarks.run(mark, work);
}

/** The mark of the task running the current call, if any. */
export function currentTaskMark(): string | undefined {
  return taskMarks.getStore();
}

/** `env` with the current task's mark added (the same object's copy; unchanged outside a task). */
export function withTaskMark<T extends Record<string, string | undefined>>(env: T): T {
  const mark = taskMarks.getStore();
  return mark === undefined ? env : { ...env, [TASK_MARK_VARIABLE]: mark };
}

/**
 * Sends `signal` to every process (other than this one) whose environment has `variable=value`,
 * found through /proc (Linux only; elsewhere none is found). Processes that cleared their
 * environment are out of reach. Resolves with the ids signalled.
 */
export async function signalMarkedProcesses(
  variable: string,
  value: string,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<number[]> {
  if (process.platform !== 'linux' || value === '') return [];
  const needle = Buffer.from(`${variable}=${value}\0`);
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const signalled: number[] = [];
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
      .map(async (entry) => {
        const environ = await readFile(`/proc/${entry}/environ`).catch(() => undefined);
        if (environ?.includes(needle) !== true) return;
        try {
          process.kill(Number(entry), signal);
          signalled.push(Number(entry));
        } catch {
          // Already gone.
        }
      }),
  );
  return signalled;
}
