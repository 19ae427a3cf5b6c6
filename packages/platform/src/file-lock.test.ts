import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isToolError } from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'toolsys-lock-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function appendLine(file: string, line: string): Promise<void> {
  const before = await readFile(file, 'utf8').catch(() => '');
  await new Promise((done) => setImmediate(done));
  await writeFile(file, `${before}${line}\n`);
}

describe('withFileLock', () => {
  it('runs read-modify-writes on one path one at a time, and removes the lock file', async () => {
    const file = join(folder, 'note.txt');
    const lock = join(folder, '.note.lock');
    await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        withFileLock(lock, () => appendLine(file, `${index}`)),
      ),
    );
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines.sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 25 }, (_, index) => `${index}`),
    );
    expect(await readdir(folder)).toEqual(['note.txt']);
  });

  it('waits for a lock held by another process, then fails retryably at its limit', async () => {
    const lock = join(folder, '.busy.lock');
    await writeFile(lock, '1');
    const error = await withFileLock(lock, async () => 'ran', { waitMs: 100 }).catch(
      (caught: unknown) => caught,
    );
    expect(isToolError(error) && error.options.retryable).toBe(true);
  });

  it('takes over a lock left by a process that died holding it', async () => {
    const lock = join(folder, '.stale.lock');
    await writeFile(lock, '1');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, async () => 'ran', { waitMs: 100 })).toBe('ran');
  });

  it('releases the lock when the work throws', async () => {
    const lock = join(folder, '.throw.lock');
    await expect(
      withFileLock(lock, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await withFileLock(lock, async () => 'next')).toBe('next');
  });
});
