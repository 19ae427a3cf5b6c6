import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isToolError } from '@toolsys/core-tool-registry';
import { createTempWorkspace, removeTempDir, writeFiles } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspaceDirectory, openWorkspaceEntry, readWorkspaceFile } from './workspace-fs.js';
import type { WorkspacePath } from './workspace-paths.js';
import { copyEntry, removeEntry } from './workspace-tree.js';
import {
  TargetExistsError,
  withWorkspacePartFile,
  writeWorkspaceFileAtomic,
} from './workspace-write.js';

let base: string;
let root: string;
let outside: string;

/** A resolved path as resolveWorkspacePath gave it before the tree changed under it. */
function resolved(relative: string): WorkspacePath {
  return { root, relative, absolute: join(root, relative), exists: true };
}

async function expectEscapeRefused(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isToolError(error), String(error)).toBe(true);
  if (isToolError(error)) {
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toMatch(/never read or write outside the workspace root/);
  }
}

beforeEach(async () => {
  ({ base, root, outside } = await createTempWorkspace('toolsys-wsfs-', { rootName: 'ws' }));
  await writeFiles(root, { 'd/a.txt': 'inside\n' });
  await writeFiles(outside, { 'a.txt': 'outside\n' });
  // A folder swapped for a link after resolution: the link sits where the folder was.
  await symlink(outside, join(root, 'swapped'));
});

afterEach(async () => {
  await removeTempDir(base);
});

describe('openWorkspaceEntry', () => {
  it('opens a file inside and reads it through its descriptor path', async () => {
    const entry = await openWorkspaceEntry(resolved('d/a.txt'));
    try {
      expect(entry.path).toMatch(/^\/proc\/self\/fd\/\d+$/);
      expect(await readFile(entry.path, 'utf8')).toBe('inside\n');
    } finally {
      await entry.handle.close();
    }
  });

  it('refuses a folder that became a link', async () => {
    await expectEscapeRefused(openWorkspaceEntry(resolved('swapped/a.txt')));
  });

  it('refuses a file that became a link', async () => {
    await symlink(join(outside, 'a.txt'), join(root, 'd', 'b.txt'));
    await expectEscapeRefused(openWorkspaceEntry(resolved('d/b.txt')));
  });

  it('reports a missing file with its workspace path, not a /proc path', async () => {
    const error = (await openWorkspaceEntry(resolved('d/missing.txt')).catch(
      (caught: unknown) => caught,
    )) as NodeJS.ErrnoException;
    expect(error.code).toBe('ENOENT');
    expect(error.path).toBe(join(root, 'd/missing.txt'));
  });
});

describe('openWorkspaceDirectory', () => {
  it('creates missing folders only inside', async () => {
    const directory = await openWorkspaceDirectory(root, 'd/x/y', { create: true });
    await directory.handle.close();
    expect(await readdir(join(root, 'd', 'x'))).toEqual(['y']);
  });

  it('refuses to create under a link', async () => {
    await expectEscapeRefused(openWorkspaceDirectory(root, 'swapped/new', { create: true }));
    expect(await readdir(outside)).toEqual(['a.txt']);
  });
});

describe('writeWorkspaceFileAtomic', () => {
  it('writes through the held folder and leaves no temp file', async () => {
    await writeWorkspaceFileAtomic(resolved('d/a.txt'), 'new\n');
    expect(await readFile(join(root, 'd', 'a.txt'), 'utf8')).toBe('new\n');
    expect(await readdir(join(root, 'd'))).toEqual(['a.txt']);
  });

  it('writes nothing outside when the folder became a link', async () => {
    await expectEscapeRefused(writeWorkspaceFileAtomic(resolved('swapped/a.txt'), 'pwned'));
    expect(await readdir(outside)).toEqual(['a.txt']);
    expect(await readFile(join(outside, 'a.txt'), 'utf8')).toBe('outside\n');
  });

  it('replaces a link at the final name instead of writing through it', async () => {
    await symlink(join(outside, 'a.txt'), join(root, 'd', 'link.txt'));
    await writeWorkspaceFileAtomic(resolved('d/link.txt'), 'replaced\n');
    expect(await readFile(join(outside, 'a.txt'), 'utf8')).toBe('outside\n');
    expect(await readFile(join(root, 'd', 'link.txt'), 'utf8')).toBe('replaced\n');
  });

  it('removes its temp file when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      writeWorkspaceFileAtomic(resolved('d/c.txt'), 'x', { signal: controller.signal }),
    ).rejects.toThrow();
    expect(await readdir(join(root, 'd'))).toEqual(['a.txt']);
  });
});

describe('readWorkspaceFile', () => {
  it('reads inside and gives undefined through a link', async () => {
    expect((await readWorkspaceFile(root, 'd/a.txt'))?.toString()).toBe('inside\n');
    expect(await readWorkspaceFile(root, 'swapped/a.txt')).toBeUndefined();
  });
});

describe('removeEntry and copyEntry', () => {
  beforeEach(async () => {
    await mkdir(join(root, 'tree', 'inner'), { recursive: true });
    await writeFile(join(root, 'tree', 'inner', 'f.txt'), 'f\n');
    await symlink(outside, join(root, 'tree', 'inner', 'out'));
  });

  it('deletes a tree, removing a link inside it without entering it', async () => {
    const top = await openWorkspaceDirectory(root, '.');
    try {
      await removeEntry(top, 'tree');
    } finally {
      await top.handle.close();
    }
    expect(await readdir(root)).toEqual(['d', 'swapped']);
    expect(await readdir(outside)).toEqual(['a.txt']);
  });

  it('copies a tree with links as links, reading nothing outside', async () => {
    const top = await openWorkspaceDirectory(root, '.');
    try {
      await copyEntry(top, 'tree', top, 'copy');
    } finally {
      await top.handle.close();
    }
    expect((await readdir(join(root, 'copy', 'inner'))).sort()).toEqual(['f.txt', 'out']);
    expect(await readFile(join(root, 'copy', 'inner', 'f.txt'), 'utf8')).toBe('f\n');
    const link = await import('node:fs/promises').then((fs) =>
      fs.readlink(join(root, 'copy', 'inner', 'out')),
    );
    expect(link).toBe(outside);
  });
});

describe('commits that never replace', () => {
  it('writeWorkspaceFileAtomic with replace=false keeps a file that exists and leaves no temp', async () => {
    await writeFile(join(root, 'taken.txt'), 'first');
    const error = await writeWorkspaceFileAtomic(resolved('taken.txt'), 'second', {
      replace: false,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TargetExistsError);
    expect(await readFile(join(root, 'taken.txt'), 'utf8')).toBe('first');
    expect((await readdir(root)).filter((name) => name.includes('taken'))).toEqual(['taken.txt']);
  });

  it('a part file has a private name, and its no-replace commit keeps a file created meanwhile', async () => {
    await writeFile(join(root, 'out.bin.part'), 'the user part');
    const error = await withWorkspacePartFile(
      resolved('out.bin'),
      { key: 'test-1', keepExisting: false, replace: false },
      async (part) => {
        await writeFile(part.path, 'downloaded');
        expect(await readdir(root)).toContain('.out.bin.test-1.part');
        await writeFile(join(root, 'out.bin'), 'saved meanwhile');
        return part.commit();
      },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TargetExistsError);
    expect(await readFile(join(root, 'out.bin'), 'utf8')).toBe('saved meanwhile');
    expect(await readFile(join(root, 'out.bin.part'), 'utf8')).toBe('the user part');
  });

  it('one call at a time holds a part file', async () => {
    let release = () => {};
    const first = withWorkspacePartFile(
      resolved('one.bin'),
      { key: 'k', keepExisting: true, replace: true },
      () =>
        new Promise<void>((done) => {
          release = done;
        }),
    );
    await new Promise((done) => setTimeout(done, 50));
    const second = await withWorkspacePartFile(
      resolved('one.bin'),
      { key: 'k', keepExisting: true, replace: true },
      async () => 'ran',
    ).catch((caught: unknown) => caught);
    release();
    await first;
    expect(isToolError(second) && second.message).toBe(
      'path: "one.bin" is being written by another call right now',
    );
  });
});
