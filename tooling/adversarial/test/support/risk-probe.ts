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
    tools: [
      defineTool({
        id: 'probe_whoami',
        description: 'Returns the principal the call carries, as JSON.',
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
        execute: (_args, context) => successResult(JSON.stringify(context.principal ?? null)),
      }),
      ...(['LOW', 'MEDIUM', 'HIGH'] as const).map((risk) =>
        defineTool({
          id: `probe_${risk.toLowerCase()}`,
          description: `A ${risk} tool that answers "ran".`,
          inputSchema: ToolSchema.empty(),
          metadata: { category: 'utility', risk, annotations: ToolHints.mutating },
          execute: () => successResult('ran'),
        }),
      ),
    ],
  }),
});
