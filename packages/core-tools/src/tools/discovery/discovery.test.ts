import {
  createToolExecutor,
  defineTool,
  RiskAwareToolGate,
  renderResult,
  ToolHints,
  ToolPermissionManager,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createUtilityTools } from '../utilities/index.js';
import { createDiscoveryTools } from './index.js';

function setup(deny: readonly string[] = []) {
  const registry = new ToolRegistry();
  const asked: string[] = [];
  const permissions = new ToolPermissionManager({
    confirm: async (request) => {
      asked.push(request.toolId);
      return deny.includes(request.toolId) ? 'deny' : 'allow_once';
    },
  });
  const executor = createToolExecutor({ registry, gate: new RiskAwareToolGate(permissions) });
  registry.registerAll(createUtilityTools());
  registry.register(
    defineTool({
      id: 'delete_file',
      description: 'Deletes a file in the workspace.',
      inputSchema: ToolSchema.object({ path: z.string().describe('The file.') }),
      metadata: {
        category: 'file',
        risk: 'HIGH',
        annotations: { ...ToolHints.destructive, idempotentHint: true, sensitiveAction: true },
      },
      execute: ({ path }) => `deleted ${path}`,
    }),
  );
  registry.registerAll(createDiscoveryTools({ executor }));
  return { executor, asked };
}

describe('tool_search', () => {
  it('ranks tools by the query words and shows risk and first sentence', async () => {
    const { executor } = setup();
    const result = await executor.execute('tool_search', { query: 'delete a file' });
    expect(result.ok).toBe(true);
    expect(renderResult(result).split('\n')[0]).toBe(
      'delete_file (file, HIGH): Deletes a file in the workspace.',
    );
  });

  it('filters by category and never lists the discovery tools themselves', async () => {
    const { executor } = setup();
    const system = renderResult(await executor.execute('tool_search', { category: 'system' }));
    expect(system).toMatch(/^get_time \(system, LOW\)/);
    expect(system).not.toMatch(/tool_(search|describe|call)/);
    const none = await executor.execute('tool_search', { query: 'xylophone' });
    expect(renderResult(none)).toMatch(
      /^No tool matches\. Categories here: file, system, utility\./,
    );
  });
});

describe('tool_describe', () => {
  it('returns the schema of a tool', async () => {
    const { executor } = setup();
    const result = await executor.execute('tool_describe', { id: 'delete_file' });
    expect(result.ok && result.data).toMatchObject({
      id: 'delete_file',
      risk: 'HIGH',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    });
  });

  it('suggests close ids for an unknown one', async () => {
    const { executor } = setup();
    const result = await executor.execute('tool_describe', { id: 'delete_files' });
    expect(renderResult(result)).toContain(
      'Unknown tool "delete_files". Did you mean: delete_file?',
    );
  });
});

describe('tool_call', () => {
  it('runs a tool through the same gates: a HIGH risk tool still asks', async () => {
    const { executor, asked } = setup();
    const result = await executor.execute('tool_call', {
      id: 'delete_file',
      arguments: { path: 'a.txt' },
    });
    expect(renderResult(result)).toBe('deleted a.txt');
    expect(asked).toEqual(['delete_file']);
  });

  it('returns the refusal when the user denies the called tool', async () => {
    const { executor } = setup(['delete_file']);
    const result = await executor.execute('tool_call', {
      id: 'delete_file',
      arguments: { path: 'a' },
    });
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error.code).toBe('PERMISSION_DENIED');
  });

  it('validates the called tool arguments by field', async () => {
    const { executor } = setup();
    const result = await executor.execute('tool_call', { id: 'delete_file', arguments: {} });
    expect(result.ok ? '' : result.error.code).toBe('INVALID_ARGUMENT');
    expect(renderResult(result)).toContain('path');
  });

  it('refuses to call a discovery tool through itself', async () => {
    const { executor } = setup();
    const result = await executor.execute('tool_call', { id: 'tool_call', arguments: {} });
    expect(renderResult(result)).toContain('tool_call cannot be called through tool_call');
  });
});

describe('tool_search and tools that are off', () => {
  it('names matching off tools, grouped by why, after the tools it can call', async () => {
    const { executor } = setup();
    const noToken = {
      owner: '@toolsys/app-github',
      reason: 'its package is off: no GitHub token',
      hint: 'Ask the user to set GITHUB_TOKEN.',
    };
    executor.registry.off.add([
      { id: 'github_list_issues', description: 'Lists the issues of a repository.', ...noToken },
      { id: 'github_create_issue', description: 'Opens an issue.', ...noToken },
      {
        id: 'browser_navigate',
        description: 'Opens a page.',
        owner: '@toolsys/app-browser',
        reason: 'no Chromium found',
        hint: 'Install Chromium.',
      },
    ]);
    const result = await executor.execute('tool_search', { query: 'issue' });
    expect(renderResult(result)).toBe(
      'No tool matches. Categories here: file, system, utility. Try other words or a category.\nOff here (calling one says how to turn it on): github_create_issue, github_list_issues (@toolsys/app-github: its package is off: no GitHub token)',
    );
    const call = await executor.execute('tool_call', { id: 'github_list_issues', arguments: {} });
    expect(!call.ok && call.error.code).toBe('UNSUPPORTED');
    expect(!call.ok && call.error.hint).toBe(
      'Ask the user to set GITHUB_TOKEN. Until then, use another tool.',
    );
  });

  it('lists no off tools without a query, and none by category (theirs is not known)', async () => {
    const { executor } = setup();
    executor.registry.off.add([
      { id: 'file_shred', description: 'Shreds a file.', owner: 'x', reason: 'off', hint: 'h' },
    ]);
    for (const args of [{}, { category: 'file' }]) {
      const result = await executor.execute('tool_search', args);
      expect(renderResult(result)).not.toContain('file_shred');
    }
  });

  it('lists a served tool whose backend went away as off, not among the tools it can call', async () => {
    const { executor } = setup();
    executor.registry.off.markAway([
      {
        id: 'delete_file',
        description: 'Deletes a file in the workspace.',
        owner: '@toolsys/example-disk',
        reason: 'its disk is not mounted',
        hint: 'Mount the disk.',
      },
    ]);
    expect(renderResult(await executor.execute('tool_search', { query: 'delete file' }))).toBe(
      'No tool matches. Categories here: file, system, utility. Try other words or a category.\nOff here (calling one says how to turn it on): delete_file (@toolsys/example-disk: its disk is not mounted)',
    );
    expect(renderResult(await executor.execute('tool_search', { category: 'file' }))).not.toContain(
      'delete_file',
    );
    executor.registry.off.markBack(['delete_file']);
    expect(renderResult(await executor.execute('tool_search', { query: 'delete file' }))).toMatch(
      /^delete_file \(file, HIGH\)/,
    );
  });
});
