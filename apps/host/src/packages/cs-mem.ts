import type { ToolPackageEntry } from './types.js';

/** Cognitive memory on embedded SQLite: on by default, database in the data directory. */
export const csMemPackage: ToolPackageEntry = {
  name: '@toolsys/platform-cs-mem',
  key: 'cs-mem',
  detect: () => ({ enabled: true, reason: 'embedded SQLite' }),
  create: () => ({ tools: [] }),
};
