import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallPrincipal,
  createToolExecutor,
  principalDigest,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileMemoryTools } from './index.js';

const ALICE: CallPrincipal = { id: 'alice@example.com', kind: 'oauth', scopes: [] };
const MALLORY: CallPrincipal = { id: '../../alice', kind: 'token', scopes: ['*'] };
const LOCAL: CallPrincipal = { id: 'local', kind: 'local', scopes: [] };

let directory: string;

beforeEach(async () => {
  directory = join(await mkdtemp(join(tmpdir(), 'toolsys-notes-')), 'notes');
});

afterEach(async () => {
  await rm(join(directory, '..'), { recursive: true, force: true });
});

function notes(options: { shared?: boolean } = {}) {
  const registry = new ToolRegistry();
  registry.registerAll(createFileMemoryTools({ directory, ...options }));
  const executor = createToolExecutor({ registry });
  return async (principal: CallPrincipal, id: string, args: Record<string, unknown>) => {
    const result = await executor.execute(id, args, { principal });
    return result.ok ? result.content : `${result.error.code}: ${result.error.message}`;
  };
}

describe('file memory per principal', () => {
  it('never lets one principal read or overwrite another principal’s note', async () => {
    const call = notes();
    await call(ALICE, 'memorize', { key: 'plan', content: 'Alice: ship on Friday.' });
    expect(await call(MALLORY, 'recall', { key: 'plan' })).toMatch(/^NOT_FOUND/);
    await call(MALLORY, 'memorize', { key: 'plan', content: 'Mallory was here.' });
    expect(await call(ALICE, 'recall', { key: 'plan' })).toContain('Alice: ship on Friday.');
    expect(await call(ALICE, 'recall', { key: 'plan' })).not.toContain('Mallory');
    expect(await call(MALLORY, 'forget', { key: 'plan' })).toContain('plan');
    expect(await call(ALICE, 'recall', { key: 'plan' })).toContain('Alice: ship on Friday.');
  });

  it('names each principal’s folder by a digest, never by its id', async () => {
    const call = notes();
    await call(MALLORY, 'memorize', { key: 'n', content: 'x' });
    await call(ALICE, 'memorize', { key: 'n', content: 'y' });
    const folders = await readdir(join(directory, 'principals'));
    expect(folders.sort()).toEqual([principalDigest(ALICE), principalDigest(MALLORY)].sort());
    expect(await readdir(join(directory, '..'))).toEqual(['notes']);
  });

  it('keeps the local user’s notes where they were kept before principals existed', async () => {
    const call = notes();
    await call(LOCAL, 'memorize', { key: 'todo', content: 'local note' });
    expect(await readdir(directory)).toContain('todo.md');
    expect(await call(ALICE, 'recall', { key: 'todo' })).toMatch(/^NOT_FOUND/);
  });

  it('shares one set of notes when the configuration says so', async () => {
    const call = notes({ shared: true });
    await call(ALICE, 'memorize', { key: 'team', content: 'shared note' });
    expect(await call(MALLORY, 'recall', { key: 'team' })).toContain('shared note');
  });
});
