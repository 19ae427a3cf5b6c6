import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createMemoryTools, MemoryStore } from '@toolsys/platform-cs-mem';
import type { ResolvedDeploymentConfig } from '../config.js';
import type { ToolPackageEntry } from './types.js';

/** The memory database file: `packages['cs-mem'].databasePath`, else `<dataDir>/memory.db`. */
export function memoryDatabasePath(deployment: ResolvedDeploymentConfig): string {
  const configured = deployment.config.packages?.['cs-mem']?.databasePath;
  if (typeof configured !== 'string' || configured.trim() === '') {
    return join(deployment.dataDir, 'memory.db');
  }
  if (isAbsolute(configured)) return configured;
  return resolve(deployment.file ? dirname(deployment.file) : deployment.dataDir, configured);
}

/** Cognitive memory on embedded SQLite: on by default, database in the data directory. */
export const csMemPackage: ToolPackageEntry = {
  name: '@toolsys/platform-cs-mem',
  key: 'cs-mem',
  detect: () => ({ enabled: true, reason: 'embedded SQLite' }),
  create: ({ deployment, mode }) => {
    let path = ':memory:';
    // The tool-id gate only lists ids: a private in-memory database, no file left behind.
    if (mode === 'serve') {
      path = memoryDatabasePath(deployment);
      mkdirSync(dirname(path), { recursive: true });
    }
    const store = MemoryStore.open({ path });
    return {
      tools: createMemoryTools({ store }),
      dispose: () => store.close(),
    };
  },
};
