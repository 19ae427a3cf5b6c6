import {
  type AnyToolDefinition,
  defineTool,
  defineToolPackage,
  successResult,
  ToolHints,
  type ToolPackageEntry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectTools, metadataProblems, reportGate } from './collect.js';

function fakePackage(name: string, ids: string[]): ToolPackageEntry<Record<string, never>> {
  return defineToolPackage({
    name,
    key: name,
    description: `fake package ${name}`,
    configSchema: z.object({}).strict(),
    detect: () => ({ enabled: true, reason: 'test' }),
    create: () => ({
      tools: ids.map((id) =>
        defineTool({
          id,
          description: `tool ${id}`,
          inputSchema: ToolSchema.empty(),
          metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
          execute: () => successResult('ok'),
        }),
      ),
    }),
  });
}

function capture() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

describe('tool-id gate', () => {
  it('fails naming both owners when two packages register the same id', async () => {
    const owned = await collectTools([
      fakePackage('@toolsys/alpha', ['alpha_one', 'shared_tool']),
      fakePackage('@toolsys/beta', ['beta_one', 'shared_tool']),
    ]);
    const out = capture();
    const err = capture();
    expect(reportGate(owned, out, err)).toBe(1);
    expect(err.text()).toBe(
      'duplicate tool id "shared_tool" registered by @toolsys/alpha and @toolsys/beta\n',
    );
    expect(out.text()).toBe('alpha_one\nbeta_one\nshared_tool\n3 tool ids\n');
  });

  it('passes and lists sorted ids with a count when every id is unique', async () => {
    const owned = await collectTools([fakePackage('@toolsys/alpha', ['zeta', 'alpha'])]);
    const out = capture();
    expect(reportGate(owned, out, capture())).toBe(0);
    expect(out.text()).toBe('alpha\nzeta\n2 tool ids\n');
  });

  it('builds the real workspace composition with no duplicate', async () => {
    const owned = await collectTools();
    const err = capture();
    expect(reportGate(owned, capture(), err)).toBe(0);
    expect(owned.map(({ id }) => id)).toContain('calculate');
  });

  it('fails on a tool that declares no risk, naming the tool and its owner', async () => {
    const bare = {
      id: 'bare_tool',
      description: 'A tool from plain JavaScript.',
      inputSchema: ToolSchema.empty(),
      execute: () => successResult('ok'),
    } as unknown as AnyToolDefinition;
    const owned = [{ id: bare.id, owner: '@toolsys/alpha', tool: bare }];
    const err = capture();
    expect(reportGate(owned, capture(), err)).toBe(1);
    expect(err.text()).toBe(
      '@toolsys/alpha: "bare_tool" declares no metadata (category, risk, hints)\n',
    );
  });

  it('names each missing field of a partial declaration', () => {
    const partial = {
      id: 'partial_tool',
      description: 'Declares a category only.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', annotations: { readOnlyHint: true } },
      execute: () => successResult('ok'),
    } as unknown as AnyToolDefinition;
    expect(metadataProblems(partial)).toEqual([
      '"partial_tool" declares no risk (one of LOW, MEDIUM, HIGH)',
      '"partial_tool" does not declare destructiveHint, idempotentHint, openWorldHint, sensitiveAction',
    ]);
  });

  it.each([
    'Read_File',
    'read__file',
    'mcp__x__y',
    'read-file',
    '_read',
    'read.',
    `a${'b'.repeat(64)}`,
  ])('fails on the id %s, which breaks the one id pattern', (id) => {
    const tool = defineTool({
      id,
      description: 'x',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
      execute: () => successResult('ok'),
    });
    expect(metadataProblems(tool)[0]).toContain('breaks the id pattern');
  });

  it.each(['read_file', 'terminal.run', 'terminal.ubuntu.ensure', 'terminal.linux_bootstrap'])(
    'accepts the id %s',
    (id) => {
      const tool = defineTool({
        id,
        description: 'x',
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
        execute: () => successResult('ok'),
      });
      expect(metadataProblems(tool)).toEqual([]);
    },
  );
});
