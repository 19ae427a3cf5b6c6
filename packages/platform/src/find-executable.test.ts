import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findExecutable } from './find-executable.js';

let base: string;
let first: string;
let second: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'toolsys-find-executable-'));
  first = join(base, 'first');
  second = join(base, 'second');
  await mkdir(first);
  await mkdir(second);
  await writeFile(join(second, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('findExecutable', () => {
  it('finds the first executable of that name on the path', async () => {
    await writeFile(join(first, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    expect(await findExecutable('tool', { path: [first, second].join(delimiter) })).toBe(
      join(first, 'tool'),
    );
  });

  it('searches the PATH of the given environment', async () => {
    expect(await findExecutable('tool', { env: { PATH: second } })).toBe(join(second, 'tool'));
    expect(await findExecutable('tool', { env: {} })).toBeUndefined();
  });

  it('finds nothing when no folder holds the name', async () => {
    expect(await findExecutable('missing', { path: [first, second].join(delimiter) })).toBe(
      undefined,
    );
  });

  it('skips a file without the execute bit, and a folder of that name', async () => {
    await writeFile(join(first, 'tool'), 'data\n', { mode: 0o644 });
    await mkdir(join(base, 'third'));
    await mkdir(join(base, 'third', 'tool'));
    await chmod(join(base, 'third', 'tool'), 0o755);
    const path = [first, join(base, 'third'), second].join(delimiter);
    expect(await findExecutable('tool', { path })).toBe(join(second, 'tool'));
  });

  it('ignores relative entries of the path', async () => {
    const relative = join('.', 'second');
    const previous = process.cwd();
    process.chdir(base);
    try {
      expect(await findExecutable('tool', { path: relative })).toBeUndefined();
      expect(await findExecutable('tool', { path: `${relative}${delimiter}${second}` })).toBe(
        join(second, 'tool'),
      );
    } finally {
      process.chdir(previous);
    }
  });

  it('ignores empty entries instead of reading them as the current folder', async () => {
    const previous = process.cwd();
    process.chdir(second);
    try {
      expect(await findExecutable('tool', { path: `${delimiter}${first}${delimiter}` })).toBe(
        undefined,
      );
      expect(await findExecutable('tool', { path: '' })).toBeUndefined();
    } finally {
      process.chdir(previous);
    }
  });

  it('checks a name with a slash as given, without searching', async () => {
    const path = join(second, 'tool');
    expect(await findExecutable(path, { path: first })).toBe(path);
    expect(await findExecutable(join(first, 'tool'), { path: second })).toBeUndefined();
  });

  it('with spawnCwd, resolves relative and empty entries and a name with a slash against it', async () => {
    const options = { path: ['second', '', first].join(delimiter), spawnCwd: base };
    expect(await findExecutable('tool', options)).toBe(join(second, 'tool'));
    await writeFile(join(base, 'here'), '#!/bin/sh\n', { mode: 0o755 });
    expect(await findExecutable('here', options)).toBe(join(base, 'here'));
    expect(await findExecutable('second/tool', { spawnCwd: base })).toBe(join(second, 'tool'));
    expect(await findExecutable('first/tool', { spawnCwd: base })).toBeUndefined();
  });
});
