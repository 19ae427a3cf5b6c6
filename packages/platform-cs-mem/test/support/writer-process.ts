import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WRITER = join(PACKAGE_DIR, 'test', 'fixtures', 'memory-writer.ts');

/** A running `memory-writer` child process and the lines it printed. */
export interface WriterProcess {
  readonly child: ChildProcess;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** Resolves once `predicate` holds for the lines printed so far. */
  waitFor(predicate: (lines: readonly string[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Kills with SIGKILL and resolves when the process is gone and stdout is drained. */
  kill(): Promise<void>;
}

/** Starts the writer fixture in a real Node child process (TypeScript through tsx). */
export function startWriter(path: string, mode: 'loop' | 'hold'): WriterProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@toolsys/source', '--import', 'tsx', WRITER, path, mode],
    { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  reader.on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    lines,
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (predicate(lines)) {
            cleanup();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`writer did not get there in time; stderr: ${stderr.slice(0, 2000)}`));
        }, timeoutMs);
        const onExit = (): void => {
          cleanup();
          reject(new Error(`writer exited early; stderr: ${stderr.slice(0, 2000)}`));
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', onExit);
        };
        waiters.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
