import {
  defineTool,
  defineToolPackage,
  successResult,
  type ToolPackageEntry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectToolIds, reportGate } from './collect.js';

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
    const owned = await collectToolIds([
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
    const owned = await collectToolIds([fakePackage('@toolsys/alpha', ['zeta', 'alpha'])]);
    const out = capture();
    expect(reportGate(owned, out, capture())).toBe(0);
    expect(out.text()).toBe('alpha\nzeta\n2 tool ids\n');
  });

  it('builds the real workspace composition with no duplicate', async () => {
    const owned = await collectToolIds();
    const err = capture();
    expect(reportGate(owned, capture(), err)).toBe(0);
    expect(owned.map(({ id }) => id)).toContain('calculate');
  });
});
