import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

const directories = new Set<string>();
const interruptActions = new Set<() => void>();

/**
 * Runs `action` (synchronous) when the bench is interrupted, for what is not a child process, such
 * as a daemonised adb server; returns a function that unregisters it once the bench stopped it.
 */
export function onInterrupt(action: () => void): () => void {
  interruptActions.add(action);
  return () => interruptActions.delete(action);
}

/** Removes `directory` on exit, even when the bench is interrupted; returns it. */
export function removeOnExit(directory: string): string {
  directories.add(directory);
  return directory;
}

/** The names of the folders in the OS temp folder whose name starts with `prefix`. */
export function tempDirsNamed(prefix: string): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(prefix));
}

/** Every process below `root` (children, grandchildren …), from /proc; empty where there is none. */
export function descendantPids(root: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the name in field 2 may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * On SIGINT, SIGTERM or SIGHUP: runs the {@link onInterrupt} actions, ends every process the bench started (servers, peers, their
 * children), removes its temp directories, and exits 128 + the signal number, so an interrupted
 * `pnpm bench` leaves nothing behind.
 */
export function cleanUpOnInterrupt(): void {
  const numbers = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
  for (const signal of Object.keys(numbers) as Array<keyof typeof numbers>) {
    process.once(signal, () => {
      for (const action of interruptActions) {
        try {
          action();
        } catch {
          // Best effort: the rest must still be cleaned up.
        }
      }
      for (const pid of descendantPids(process.pid).reverse()) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      for (const directory of directories) rmSync(directory, { recursive: true, force: true });
      process.exit(128 + numbers[signal]);
    });
  }
}
