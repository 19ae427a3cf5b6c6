import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolExecutor, ToolRegistry, ToolTraceRecorder } from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { csMemConfigSchema, memoryDatabasePath, toolPackage } from './tool-package.js';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'toolsys-cs-mem-package-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function context(mode: 'serve' | 'gate', config = {}) {
  const registry = new ToolRegistry();
  const executor = createToolExecutor({ registry, traces: new ToolTraceRecorder() });
  return {
    registry,
    executor,
    entry: {
      config: csMemConfigSchema.parse(config),
      workspaceRoot: dataDir,
      dataDir,
      configDir: dataDir,
      env: {},
      registry,
      executor,
      mode,
    },
  };
}

describe('the cs-mem package entry', () => {
  it('keeps the database in the data directory and records traced calls as episodes', async () => {
    const { registry, executor, entry } = context('serve');
    const contribution = await toolPackage.create(entry);
    registry.registerAll(contribution.tools);
    const result = await executor.execute('memory_search_nodes', { query: 'anything' });
    expect(result.ok).toBe(true);
    expect(existsSync(join(dataDir, 'memory.db'))).toBe(true);
    await contribution.dispose?.();
    const store = MemoryStore.open({ path: join(dataDir, 'memory.db'), readonly: true });
    try {
      expect(store.recentEpisodes().map((episode) => episode.summary)).toEqual([
        '1 tool call: memory_search_nodes',
      ]);
    } finally {
      store.close();
    }
  });

  it('resolves databasePath against the config directory', () => {
    const paths = { dataDir, configDir: join(dataDir, 'conf') };
    expect(memoryDatabasePath({ databasePath: 'db/m.db' }, paths)).toBe(
      join(dataDir, 'conf', 'db', 'm.db'),
    );
    expect(memoryDatabasePath({}, paths)).toBe(join(dataDir, 'memory.db'));
  });

  it('refuses a misspelled option by name', () => {
    const parsed = csMemConfigSchema.safeParse({ databasepath: 'x.db' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['databasepath'],
    });
  });

  it('writes no file in gate mode', async () => {
    const before = readdirSync(dataDir);
    const contribution = await toolPackage.create(context('gate').entry);
    expect(contribution.tools.map((tool) => tool.id).sort()).toEqual([
      'memory_recall_macro',
      'memory_recent_episodes',
      'memory_remember',
      'memory_search_nodes',
    ]);
    await contribution.dispose?.();
    expect(readdirSync(dataDir)).toEqual(before);
  });

  it('opens the database on the first memory call, not when the package starts', async () => {
    const { registry, executor, entry } = context('serve');
    const contribution = await toolPackage.create(entry);
    registry.registerAll(contribution.tools);
    expect(existsSync(join(dataDir, 'memory.db'))).toBe(false);
    expect((await executor.execute('memory_recent_episodes', {})).ok).toBe(true);
    expect(existsSync(join(dataDir, 'memory.db'))).toBe(true);
    await contribution.dispose?.();
  });

  it('answers UNSUPPORTED with a next step when the database file is not SQLite', async () => {
    writeFileSync(join(dataDir, 'garbage.db'), 'not a database, just text '.repeat(200));
    const { registry, executor, entry } = context('serve', { databasePath: 'garbage.db' });
    const contribution = await toolPackage.create(entry);
    registry.registerAll(contribution.tools);
    const result = await executor.execute('memory_search_nodes', { query: 'anything' });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'UNSUPPORTED',
        message: expect.stringMatching(/^the memory database cannot be opened: /),
        hint: expect.stringContaining('continue without it'),
      },
    });
    await contribution.dispose?.();
  });
});
