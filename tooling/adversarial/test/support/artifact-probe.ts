import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  defineTool,
  defineToolPackage,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';

/**
 * `probe_artifact`: writes `probe/report-<principal>.txt` under the data directory (a name another
 * caller can guess) and returns it as the call's artifact.
 */
export const artifactProbePackage = defineToolPackage({
  name: '@toolsys/adversarial-artifact-probe',
  key: 'artifactProbe',
  description: 'a tool that returns an artifact',
  configSchema: corePackage.configSchema,
  detect: () => ({ enabled: true, reason: 'test' }),
  create: ({ dataDir }) => ({
    tools: [
      defineTool({
        id: 'probe_artifact',
        description: 'Writes a text file under the data directory and returns it as an artifact.',
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
        execute: (_args, context) => {
          const directory = join(dataDir, 'probe');
          mkdirSync(directory, { recursive: true });
          const path = join(directory, `report-${context.principal?.id ?? 'nobody'}.txt`);
          writeFileSync(path, `secret of ${context.principal?.id ?? 'nobody'}`);
          return successResult('written', { artifacts: [{ path, mimeType: 'text/plain' }] });
        },
      }),
    ],
  }),
});
