// Fresh temporary folders, one per use, removed by their owner.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Creates a new, empty folder under the OS temp folder whose name starts with `prefix` (e.g.
 * `toolsys-redis-`); nothing left there by an earlier run is ever reused. Remove it with
 * {@link removeTempDir}.
 */
export async function createTempDir(prefix: string): Promise<string> {
  return await mkdtemp(join(tmpdir(), prefix));
}

/** Removes a folder and everything in it; nothing happens when it is already gone. */
export async function removeTempDir(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}
