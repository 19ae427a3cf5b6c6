import {
  defineTool,
  defineToolPackage,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';

/** `probe_low`, `probe_medium`, `probe_high`: one tool of each risk, each answering "ran". */
export const riskProbePackage = defineToolPackage({
  name: '@toolsys/adversarial-auth-probe',
  key: 'probe',
  description: 'tools of each risk level',
  configSchema: corePackage.configSchema,
  detect: () => ({ enabled: true, reason: 'test' }),
  create: () => ({
    tools: (['LOW', 'MEDIUM', 'HIGH'] as const).map((risk) =>
      defineTool({
        id: `probe_${risk.toLowerCase()}`,
        description: `A ${risk} tool that answers "ran".`,
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk, annotations: ToolHints.mutating },
        execute: () => successResult('ran'),
      }),
    ),
  }),
});
