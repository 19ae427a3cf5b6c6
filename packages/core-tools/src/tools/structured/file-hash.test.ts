import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResult } from '@toolsys/core-tool-registry';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileHashTools } from './file-hash.js';

let base: string;
let root: string;
let executor: PipelineToolExecutor;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'toolsys-file-hash-'));
  root = join(base, 'workspace');
  await mkdir(join(root, 'sub'), { recursive: true });
  await writeFile(join(root, 'sub', 'hello.txt'), 'hello\n');
  await writeFile(join(base, 'secret.txt'), 'outside the workspace');
  const registry = new ToolRegistry();
  registry.registerAll(createFileHashTools({ workspaceRoot: root }), { owner: 'test' });
  executor = createToolExecutor({ registry });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('file_hash', args);
}

const HELLO_SHA256 = createHash('sha256').update('hello\n').digest('hex');

describe('file_hash', () => {
  it('returns the sha256 of a workspace file with its size', async () => {
    expect(await call({ path: 'sub/hello.txt' })).toEqual({
      ok: true,
      content: `sha256 ${HELLO_SHA256}  sub/hello.txt (6 bytes)`,
      data: { path: 'sub/hello.txt', algorithm: 'sha256', digest: HELLO_SHA256, size: 6 },
    });
  });

  it('supports other algorithms and base64', async () => {
    const md5 = createHash('md5').update('hello\n').digest('base64');
    expect(
      await call({ path: 'sub/hello.txt', algorithm: 'md5', encoding: 'base64' }),
    ).toMatchObject({
      data: { algorithm: 'md5', digest: md5 },
    });
    const sha3 = createHash('sha3-256').update('hello\n').digest('hex');
    expect(await call({ path: join(root, 'sub/hello.txt'), algorithm: 'sha3-256' })).toMatchObject({
      data: { digest: sha3 },
    });
  });

  it('compares with an expected digest, case-insensitively for hex', async () => {
    const matching = await call({ path: 'sub/hello.txt', expected: HELLO_SHA256.toUpperCase() });
    expect(matching).toMatchObject({ ok: true, data: { matches: true } });
    expect(matching.ok && matching.content).toContain('Matches the expected digest.');
    const different = await call({ path: 'sub/hello.txt', expected: 'abc123' });
    expect(different).toMatchObject({ ok: true, data: { matches: false } });
    expect(different.ok && different.content).toContain('DOES NOT match');
  });

  it('refuses a path that climbs out of the workspace with PERMISSION_DENIED', async () => {
    const result = await call({ path: '../secret.txt' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'PERMISSION_DENIED', field: 'path' },
    });
    if (!result.ok) expect(result.error.message).not.toContain(base);
  });

  it('refuses an absolute path outside the workspace and a symlink escaping it', async () => {
    expect(await call({ path: '/etc/passwd' })).toMatchObject({
      ok: false,
      error: { code: 'PERMISSION_DENIED', field: 'path' },
    });
    await symlink(join(base, 'secret.txt'), join(root, 'link.txt'));
    expect(await call({ path: 'link.txt' })).toMatchObject({
      ok: false,
      error: { code: 'PERMISSION_DENIED', field: 'path' },
    });
  });

  it('returns NOT_FOUND for a missing file and INVALID_ARGUMENT for a folder', async () => {
    expect(await call({ path: 'sub/missing.txt' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', field: 'path' },
    });
    expect(await call({ path: 'sub' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'path' },
    });
  });

  it('rejects an unknown algorithm and a missing path', async () => {
    expect(await call({ path: 'sub/hello.txt', algorithm: 'crc32' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'algorithm' },
    });
    expect(await call({})).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'path' },
    });
  });
});
