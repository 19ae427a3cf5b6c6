import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { EnhancedToolExecutor } from '@toolsys/core-tool-registry';
import { createMemoryTools, MemoryStore, TraceMemoryRecorder } from '@toolsys/platform-cs-mem';
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

/**
 * Cognitive memory on embedded SQLite: on by default, database in the data directory. Successful
 * call sequences traced by the executor are recorded as episodes and macros unless
 * `packages['cs-mem'].recordTraces` is false.
 */
export const csMemPackage: ToolPackageEntry = {
  name: '@toolsys/platform-cs-mem',
  key: 'cs-mem',
  detect: () => ({ enabled: true, reason: 'embedded SQLite' }),
  create: ({ deployment, executor, mode }) => {
    if (mode === 'gate') {
      // The tool-id gate only lists ids: a private in-memory database, no file left behind.
      const store = MemoryStore.open({ path: ':memory:' });
      return { tools: createMemoryTools({ store }), dispose: () => store.close() };
    }
    const path = memoryDatabasePath(deployment);
    mkdirSync(dirname(path), { recursive: true });
    const store = MemoryStore.open({ path });
    const traces = executor instanceof EnhancedToolExecutor ? executor.traces : undefined;
    const recordTraces = deployment.config.packages?.['cs-mem']?.recordTraces !== false;
    const recorder =
      traces && recordTraces
        ? new TraceMemoryRecorder({ store, defaultSessionId: 'host' })
        : undefined;
    if (traces && recorder) recorder.attach(traces);
    return {
      tools: createMemoryTools({ store }),
      dispose: () => {
        recorder?.close();
        store.close();
      },
    };
  },
};
