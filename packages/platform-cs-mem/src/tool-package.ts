import { isAbsolute, join, resolve } from 'node:path';
import {
  type CallPrincipal,
  defineToolPackage,
  PipelineToolExecutor,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { MemoryStores } from './memory-stores.js';
import { createMemoryTools } from './tools/index.js';
import { TraceMemoryRecorder } from './trace-memory-recorder.js';

/** The `packages.cs-mem` section of `toolsys.config.json`. */
export const csMemConfigSchema = z
  .object({
    databasePath: z
      .string()
      .min(1)
      .optional()
      .describe('SQLite file of the cognitive memory; default `<dataDir>/memory.db`.'),
    recordTraces: z
      .boolean()
      .optional()
      .describe('Record successful traced call sequences as episodes and macros (default true).'),
    shared: z
      .boolean()
      .optional()
      .describe(
        'One memory graph for every caller. Default: packages.core.memory.shared, else false (each principal has its own database beside databasePath; local keeps databasePath itself).',
      ),
  })
  .strict();

/** The cs-mem config section. */
export type CsMemConfig = z.infer<typeof csMemConfigSchema>;

/** The memory database file: `databasePath` against the config directory, else `<dataDir>/memory.db`. */
export function memoryDatabasePath(
  config: CsMemConfig,
  paths: { dataDir: string; configDir: string },
): string {
  const configured = config.databasePath;
  if (configured === undefined || configured.trim() === '') return join(paths.dataDir, 'memory.db');
  return isAbsolute(configured) ? configured : resolve(paths.configDir, configured);
}

/**
 * Cognitive memory on embedded SQLite as a deployment composes it: on by default, database in the
 * data directory. Successful call sequences traced by the executor are recorded as episodes and
 * macros unless `recordTraces` is false. In gate mode a private in-memory database is used, so no
 * file is written.
 */
export const toolPackage = defineToolPackage<CsMemConfig>({
  name: '@toolsys/platform-cs-mem',
  key: 'cs-mem',
  description: 'cognitive memory on embedded SQLite: nodes, episodes and macros',
  configSchema: csMemConfigSchema,
  detect: () => ({ enabled: true, reason: 'embedded SQLite' }),
  create: ({ config, dataDir, configDir, executor, mode }) => {
    // Each database (and better-sqlite3 with it) opens on the first memory call or the first
    // recorded episode of its principal, not at start-up: a deployment that never uses memory
    // never loads SQLite. A file that cannot be opened is reported by that call, with a next step.
    const path = mode === 'gate' ? ':memory:' : memoryDatabasePath(config, { dataDir, configDir });
    const stores = new MemoryStores({ path, ...(config.shared ? { shared: true } : {}) });
    const openStore = (principal?: Pick<CallPrincipal, 'id' | 'kind'>) => stores.for(principal);
    const traces =
      mode !== 'gate' && executor instanceof PipelineToolExecutor ? executor.traces : undefined;
    const recorder =
      traces && config.recordTraces !== false
        ? new TraceMemoryRecorder({ store: openStore, defaultSessionId: 'host' })
        : undefined;
    if (traces && recorder) recorder.attach(traces);
    return {
      tools: createMemoryTools({ store: openStore }),
      dispose: () => {
        recorder?.close();
        stores.close();
      },
    };
  },
});
