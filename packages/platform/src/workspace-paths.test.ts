import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveWorkspacePath } from './workspace-paths.js';

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-paths-')));
  root = join(base, 'workspace');
  outside = join(base, 'outside');
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'src', 'a.txt'), 'a');
  await writeFile(join(outside, 'secret.txt'), 'secret');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(path: string, options = {}): Promise<ToolError> {
  try {
    await resolveWorkspacePath(root, path, options);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`expected ${path} to be refused`);
}

describe('resolveWorkspacePath', () => {
  it('resolves a relative path inside the root', async () => {
    expect(await resolveWorkspacePath(root, 'src/a.txt')).toEqual({
      absolute: join(root, 'src', 'a.txt'),
      relative: 'src/a.txt',
      exists: true,
      root,
    });
  });

  it('resolves a path that does not exist yet', async () => {
    const resolved = await resolveWorkspacePath(root, 'new/deep/file.txt');
    expect(resolved.relative).toBe('new/deep/file.txt');
    expect(resolved.exists).toBe(false);
  });

  it('accepts ".." that stays inside and an absolute path inside', async () => {
    expect((await resolveWorkspacePath(root, 'src/../src/a.txt')).relative).toBe('src/a.txt');
    expect((await resolveWorkspacePath(root, join(root, 'src'))).relative).toBe('src');
    expect((await resolveWorkspacePath(root, '.')).relative).toBe('.');
  });

  it('refuses ".." that climbs out, naming the field and only the given path', async () => {
    const error = await refusal('../../etc/passwd');
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.options.field).toBe('path');
    expect(error.message).toBe(
      'path: "../../etc/passwd" climbs out of the workspace; file tools are confined to the workspace root',
    );
    expect(error.message).not.toContain(base);
  });

  it('refuses an absolute path outside', async () => {
    const error = await refusal('/etc/passwd', { field: 'source' });
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toMatch(/^source: "\/etc\/passwd" is outside the workspace/);
  });

  it('refuses a sibling folder whose name starts with the root name', async () => {
    await mkdir(`${root}-evil`);
    expect((await refusal(`${root}-evil/x`)).code).toBe('PERMISSION_DENIED');
  });

  it('refuses a symlink to a folder outside', async () => {
    await symlink(outside, join(root, 'escape'));
    const error = await refusal('escape/secret.txt');
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain('symbolic link');
  });

  it('refuses a new file under a symlinked folder outside', async () => {
    await symlink(outside, join(root, 'escape'));
    expect((await refusal('escape/new.txt')).code).toBe('PERMISSION_DENIED');
  });

  it('refuses a dangling symlink that points outside', async () => {
    await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling'));
    expect((await refusal('dangling')).code).toBe('PERMISSION_DENIED');
  });

  it('accepts a symlink that stays inside', async () => {
    await symlink(join(root, 'src'), join(root, 'link'));
    expect((await resolveWorkspacePath(root, 'link/a.txt')).relative).toBe('src/a.txt');
  });

  it('checks the link itself, not its target, when told not to follow it', async () => {
    await symlink(outside, join(root, 'escape'));
    const resolved = await resolveWorkspacePath(root, 'escape', { followFinalSymlink: false });
    expect(resolved).toMatchObject({ relative: 'escape', exists: true });
  });

  it('refuses the root itself when asked to', async () => {
    const error = await refusal('.', { allowRoot: false });
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain('workspace root itself');
    expect((await refusal(root, { allowRoot: false })).code).toBe('PERMISSION_DENIED');
  });

  it('works when the root is given through a symlink', async () => {
    const alias = join(base, 'alias');
    await symlink(root, alias);
    const resolved = await resolveWorkspacePath(alias, join(alias, 'src', 'a.txt'));
    expect(resolved.relative).toBe('src/a.txt');
  });

  it('rejects a NUL character as an invalid argument', async () => {
    expect((await refusal('a\0b')).code).toBe('INVALID_ARGUMENT');
  });
});
