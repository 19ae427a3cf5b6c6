import { isAbsolute, resolve } from 'node:path';
import { createCoreTools } from '@toolsys/core-tool-registry';
import type { ToolPackageEntry } from './types.js';

/** The core package: always on. Its `packages.core` section tunes shell, network and skills. */
export const corePackage: ToolPackageEntry = {
  name: '@toolsys/core-tool-registry',
  key: 'core',
  detect: () => ({ enabled: true, reason: 'pure Node, always available' }),
  create: ({ deployment, executor }) => {
    const section = deployment.config.packages?.core;
    const base = deployment.file ? resolve(deployment.file, '..') : deployment.workspaceRoot;
    const catalogs = section?.skills?.catalogs?.map((path) =>
      isAbsolute(path) ? path : resolve(base, path),
    );
    return {
      tools: createCoreTools({
        workspaceRoot: deployment.workspaceRoot,
        dataDir: deployment.dataDir,
        executor,
        ...(section?.shell ? { shell: section.shell } : {}),
        ...(section?.network ? { network: section.network } : {}),
        skills: {
          ...(section?.skills?.allowNpm !== undefined ? { allowNpm: section.skills.allowNpm } : {}),
          ...(catalogs ? { catalogs } : {}),
          ...(section?.shell ? { shellPolicy: section.shell } : {}),
        },
      }),
    };
  },
};
