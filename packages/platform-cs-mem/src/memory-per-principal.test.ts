import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallPrincipal,
  createToolExecutor,
  ToolRegistry,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { MemoryStores } from './memory-stores.js';
import { csMemConfigSchema, toolPackage } from './tool-package.js';

const alice: CallPrincipal = { id: 'alice', kind: 'token', scopes: ['*'] };
const bob: CallPrincipal = { id: 'bob', kind: 'oauth', scopes: ['*'] };

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'toolsys-cs-mem-principals-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** The cs-mem package over a real database file in the test's data directory. */
async function start(config: Record<string, unknown> = {}) {
  const registry = new ToolRegistry();
  const executor = createToolExecutor({ registry, traces: new ToolTraceRecorder() });
  const contribution = await toolPackage.create({
    config: csMemConfigSchema.parse(config),
    workspaceRoot: dataDir,
    dataDir,
    configDir: dataDir,
    env: {},
    registry,
    executor,
    mode: 'serve',
  });
  registry.registerAll(contribution.tools);
  const remember = (principal: CallPrincipal | undefined, text: string) =>
    executor.execute('memory_remember', { id: 'plan', text }, { principal });
  const search = async (principal: CallPrincipal | undefined, query: string) => {
    const result = await executor.execute('memory_search_nodes', { query }, { principal });
    return result.ok ? result.content : result.error.code;
  };
  return { executor, remember, search, dispose: () => contribution.dispose?.() };
}

describe('the memory graph of a principal', () => {
  it('is its own: another principal neither finds nor overwrites its nodes', async () => {
    const memory = await start();
    expect((await memory.remember(alice, 'alice wants the blue deployment')).ok).toBe(true);
    expect((await memory.remember(bob, 'bob wants the green deployment')).ok).toBe(true);
    expect(await memory.search(alice, 'deployment')).toContain('blue');
    expect(await memory.search(alice, 'deployment')).not.toContain('green');
    expect(await memory.search(bob, 'deployment')).toContain('green');
    expect(await memory.search(bob, 'deployment')).not.toContain('blue');
    expect(await memory.search(undefined, 'deployment')).not.toMatch(/blue|green/);
    await memory.dispose();
  });

  it('keeps the single graph of before as the local principal’s, whole', async () => {
    const before = MemoryStore.open({ path: join(dataDir, 'memory.db') });
    before.upsertNode({ id: 'old', text: 'a note from before principals' });
    before.close();
    const memory = await start();
    expect(await memory.search(undefined, 'principals')).toContain('a note from before');
    expect(await memory.search(alice, 'principals')).not.toContain('a note from before');
    await memory.dispose();
  });

  it('is one for everyone when shared', async () => {
    const memory = await start({ shared: true });
    await memory.remember(alice, 'alice wants the blue deployment');
    expect(await memory.search(bob, 'deployment')).toContain('blue');
    await memory.dispose();
  });

  it('records a principal’s traced calls as episodes in its own graph only', async () => {
    const memory = await start();
    await memory.search(alice, 'anything');
    await memory.dispose();
    const stores = new MemoryStores({ path: join(dataDir, 'memory.db') });
    try {
      expect(
        stores
          .for(alice)
          .recentEpisodes()
          .map((episode) => episode.summary),
      ).toEqual(['1 tool call: memory_search_nodes']);
      expect(stores.for(bob).recentEpisodes()).toEqual([]);
      expect(stores.for(undefined).recentEpisodes()).toEqual([]);
    } finally {
      stores.close();
    }
  });

  it('lies in a file named by a digest of the principal, never its id', () => {
    const stores = new MemoryStores({ path: join(dataDir, 'memory.db') });
    const path = stores.pathOf({ id: '../../etc/passwd', kind: 'token' });
    expect(path.startsWith(join(dataDir, 'memory.principals'))).toBe(true);
    expect(path).toMatch(/[0-9a-f]{32}\.db$/);
    expect(stores.pathOf({ id: 'x', kind: 'local' })).toBe(join(dataDir, 'memory.db'));
    expect(existsSync(path)).toBe(false);
  });
});
