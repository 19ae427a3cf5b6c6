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

  it('applies a run-policy override on top of the tool policy', () => {
    const [webFetch] = applyToolSettings(
      tools,
      { tools: { runPolicies: { web_fetch: { timeoutMs: 5_000, ratePerMinute: null } } } },
      'core',
    );
    expect(webFetch?.runPolicy).toEqual({
      ...Object.fromEntries(
        Object.entries(RunPolicies.network).filter(([k]) => k !== 'ratePerMinute'),
      ),
      name: 'network*',
      timeoutMs: 5_000,
    });
    expect(webFetch?.execute).toBeTypeOf('function');
  });

  it('starts from a named preset when the override gives one', () => {
    const [, , calculate] = applyToolSettings(
      tools,
      { tools: { runPolicies: { calculate: { preset: 'quickRead', maxRetries: 0 } } } },
      'core',
    );
    expect(calculate?.runPolicy).toEqual({
      ...RunPolicies.quickRead,
      name: 'quickRead*',
      maxRetries: 0,
    });
  });
});
