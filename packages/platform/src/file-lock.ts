import { open, stat, unlink } from 'node:fs/promises';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

/** Options for {@link withFileLock}. */
export interface FileLockOptions {
  /** Longest wait for the lock in ms before the call fails (retryable). Default 10000. */
  waitMs?: number;
  /**
   * A lock file older than this many ms is taken as left by a process that died holding it, and
   * removed. Default 30000; keep it well above the longest `work`.
   */
  staleMs?: number;
}

/** Calls of this process waiting for or holding each lock, chained: one at a time per path. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `work` as the only writer of one thing (a note), in this process and across processes
 * sharing the folder: calls of this process queue per `lockPath`, and the one running holds
 * `lockPath`, created exclusively (O_EXCL) and removed afterwards. A read-modify-write inside
 * `work` (an append) therefore never loses another writer's update.
 */
export async function withFileLock<T>(
  lockPath: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const previous = queues.get(lockPath) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => holdFileLock(lockPath, work, options));
  const tail = run.catch(() => undefined);
  queues.set(lockPath, tail);
  try {
    return await run;
  } finally {
    if (queues.get(lockPath) === tail) queues.delete(lockPath);
  }
}

async function holdFileLock<T>(
  lockPath: string,
  work: () => Promise<T>,
  options: FileLockOptions,
): Promise<T> {
  const waitMs = options.waitMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + waitMs;
  let delay = 5;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await stat(lockPath).catch(() => undefined);
    if (held && Date.now() - held.mtimeMs > staleMs) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `Another writer held this note for more than ${waitMs} ms.`,
        { retryable: true, hint: 'Retry in a moment.' },
      );
    }
    await new Promise((done) => setTimeout(done, delay));
    delay = Math.min(delay * 2, 100);
  }
  try {
    return await work();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}
