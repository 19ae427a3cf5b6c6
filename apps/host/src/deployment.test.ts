import {
  defineTool,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { isToolSelected, matchesToolPattern } from './tool-selection.js';

const tools = [
  defineTool({
    id: 'web_fetch',
    description: 'Fetches.',
    inputSchema: ToolSchema.empty(),
    metadata: {
      category: 'network',
      risk: 'LOW',
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.network,
    execute: () => successResult('ok'),
  }),
  defineTool({
    id: 'shell_execute',
    description: 'Runs.',
    inputSchema: ToolSchema.empty(),
    metadata: {
      category: 'shell',
      risk: 'HIGH',
      annotations: { ...ToolHints.destructive, openWorldHint: true, sensitiveAction: true },
    },
    execute: () => successResult('ok'),
  }),
  defineTool({
    id: 'calculate',
    description: 'Adds.',
    inputSchema: ToolSchema.empty(),
    metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
    execute: () => successResult('ok'),
  }),
  defineTool({
    id: 'terminal.wait',
    description: 'Waits.',
    inputSchema: ToolSchema.empty(),
    metadata: {
      category: 'terminal',
      risk: 'LOW',
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    execute: () => successResult('ok'),
  }),
];

const core = { packageKey: 'core', groups: {} };

function selected(config: Parameters<typeof isToolSelected>[2], groups = {}): string[] {
  return tools
    .filter((tool) => isToolSelected(tool, { ...core, groups }, config))
    .map((tool) => tool.id);
}

describe('isToolSelected', () => {
  it('leaves out disabled ids and tool groups switched off for the package', () => {
    expect(selected({ disabled: ['web_fetch'] }, { shell: false })).toEqual([
      'calculate',
      'terminal.wait',
    ]);
  });

  it('keeps only included tools, by id glob, category and package', () => {
    expect(selected({ include: ['terminal.*'] })).toEqual(['terminal.wait']);
    expect(selected({ include: ['category:network', 'calc*'] })).toEqual([
      'web_fetch',
      'calculate',
    ]);
    expect(selected({ include: ['package:core'] })).toHaveLength(4);
    expect(selected({ include: ['package:app-browser'] })).toEqual([]);
  });

  it('lets exclude win over include', () => {
    expect(selected({ include: ['*'], exclude: ['*_*', 'terminal.?ait'] })).toEqual(['calculate']);
  });
});

describe('matchesToolPattern', () => {
  it('treats dots and other regex characters in a glob literally', () => {
    const [, , , wait] = tools;
    expect(matchesToolPattern('terminal.wait', wait as never, core)).toBe(true);
    expect(matchesToolPattern('terminalxwait', wait as never, core)).toBe(false);
    expect(matchesToolPattern('terminal.w(a', wait as never, core)).toBe(false);
  });
});
