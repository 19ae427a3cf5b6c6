import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '@toolsys/core-tool-registry';
import { MemoryStore } from '@toolsys/platform-cs-mem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResolvedDeploymentConfig } from '../config.js';
import { composeDeployment } from '../deployment.js';
import { createExecutionStack } from '../executor.js';
import { csMemPackage, memoryDatabasePath } from './cs-mem.js';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'toolsys-host-cs-mem-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function deployment(config: ResolvedDeploymentConfig['config'] = {}, file?: string) {
  return { config, file, workspaceRoot: dataDir, dataDir } satisfies ResolvedDeploymentConfig;
}

describe('csMemPackage', () => {
  it('keeps the database in the data directory and records traced calls as episodes', async () => {
    const composed = await composeDeployment(deployment(), { packages: [csMemPackage] });
    const result = await composed.executor.execute('memory_search_nodes', { query: 'anything' });
    expect(result.ok).toBe(true);
    expect(existsSync(join(dataDir, 'memory.db'))).toBe(true);
    await composed.close();
    const store = MemoryStore.open({ path: join(dataDir, 'memory.db'), readonly: true });
    try {
      expect(store.recentEpisodes().map((episode) => episode.summary)).toEqual([
        '1 tool call: memory_search_nodes',
      ]);
    } finally {
      store.close();
    }
  });

  it('resolves packages.cs-mem.databasePath against the config file', () => {
    const file = join(dataDir, 'conf', 'toolsys.config.json');
    expect(
      memoryDatabasePath(deployment({ packages: { 'cs-mem': { databasePath: 'db/m.db' } } }, file)),
    ).toBe(join(dataDir, 'conf', 'db', 'm.db'));
    expect(memoryDatabasePath(deployment())).toBe(join(dataDir, 'memory.db'));
  });

  it('writes no file in gate mode', async () => {
    const registry = new ToolRegistry();
    const stack = createExecutionStack({ registry, deployment: deployment() });
    const before = readdirSync(dataDir);
    const contribution = await csMemPackage.create({
      deployment: deployment(),
      registry,
      executor: stack.executor,
      mode: 'gate',
    });
    expect(contribution.tools.map((tool) => tool.id).sort()).toEqual([
      'memory_recall_macro',
      'memory_recent_episodes',
      'memory_search_nodes',
    ]);
    await contribution.dispose?.();
    await stack.close();
    expect(readdirSync(dataDir)).toEqual(before);
  });
});
