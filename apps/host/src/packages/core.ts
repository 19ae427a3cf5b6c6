import { createCoreTools } from '@toolsys/core-tool-registry';
import type { ToolPackageEntry } from './types.js';

/** The core package: always on. */
export const corePackage: ToolPackageEntry = {
  name: '@toolsys/core-tool-registry',
  key: 'core',
  detect: () => ({ enabled: true, reason: 'pure Node, always available' }),
  create: ({ deployment, executor }) => ({
    tools: createCoreTools({
      workspaceRoot: deployment.workspaceRoot,
      dataDir: deployment.dataDir,
      executor,
    }),
  }),
};
