import { defineTool, RunPolicies, successResult, ToolSchema } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { applyToolSettings } from './deployment.js';

const tools = [
  defineTool({
    id: 'web_fetch',
    description: 'Fetches.',
    inputSchema: ToolSchema.empty(),
    runPolicy: RunPolicies.network,
    execute: () => successResult('ok'),
  }),
  defineTool({
    id: 'shell_execute',
    description: 'Runs.',
    inputSchema: ToolSchema.empty(),
    execute: () => successResult('ok'),
  }),
  defineTool({
    id: 'calculate',
    description: 'Adds.',
    inputSchema: ToolSchema.empty(),
    execute: () => successResult('ok'),
  }),
];

describe('applyToolSettings', () => {
  it('leaves out disabled ids and tool groups switched off for the package', () => {
    const kept = applyToolSettings(
      tools,
      { tools: { disabled: ['web_fetch'] }, packages: { core: { groups: { shell: false } } } },
      'core',
    );
    expect(kept.map((tool) => tool.id)).toEqual(['calculate']);
  });
});
