import { existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTempWorkspace, removeTempDir, writeFiles } from '../src/index.js';

describe('createTempWorkspace', () => {
  it('makes a resolved folder holding an empty workspace and an empty folder beside it', async () => {
    const workspace = await createTempWorkspace('toolsys-ws-test-');
    try {
      expect(await realpath(workspace.base)).toBe(workspace.base);
      expect(workspace.root).toBe(join(workspace.base, 'workspace'));
      expect(workspace.outside).toBe(join(workspace.base, 'outside'));
      expect((await readdir(workspace.base)).sort()).toEqual(['outside', 'workspace']);
      expect(await readdir(workspace.root)).toEqual([]);
      expect(await readdir(workspace.outside)).toEqual([]);
    } finally {
      await removeTempDir(workspace.base);
    }
    expect(existsSync(workspace.base)).toBe(false);
  });

  it('names the two folders as asked', async () => {
    const workspace = await createTempWorkspace('toolsys-ws-test-', {
      rootName: 'ws',
      outsideName: 'canary',
    });
    try {
      expect((await readdir(workspace.base)).sort()).toEqual(['canary', 'ws']);
    } finally {
      await removeTempDir(workspace.base);
    }
  });
});

describe('writeFiles', () => {
  it('writes each file, creating the folders on the way', async () => {
    const workspace = await createTempWorkspace('toolsys-ws-test-');
    try {
      await writeFiles(workspace.root, { 'a.txt': 'one\n', 'deep/er/b.txt': 'two\n' });
      expect(await readFile(join(workspace.root, 'a.txt'), 'utf8')).toBe('one\n');
      expect(await readFile(join(workspace.root, 'deep', 'er', 'b.txt'), 'utf8')).toBe('two\n');
    } finally {
      await removeTempDir(workspace.base);
    }
  });
});
