import { describe, expect, it } from 'vitest';
import { ToolHints } from '../contract/tool-metadata.js';
import { successResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { FIXTURE_METADATA } from '../testing/fixture-metadata.js';
import { defineTestTool, TEST_TOOL_METADATA } from '../testing/test-tool.js';
import { DuplicateToolError, ToolRegistry } from './tool-registry.js';

function tool(id: string, text = id) {
  return defineTestTool({
    id,
    description: `${text}.`,
    metadata: FIXTURE_METADATA[id] ?? {
      category: 'utility',
      risk: 'LOW',
      annotations: ToolHints.mutating,
    },
    execute: () => successResult(text),
  });
}

describe('ToolRegistry', () => {
  it('REPLACE (default) swaps the tool and reports it', () => {
    const registry = new ToolRegistry();
    expect(registry.register(tool('read_file', 'old'))).toBe('registered');
    expect(registry.register(tool('read_file', 'new'))).toBe('replaced');
    expect(registry.get('read_file')?.description).toBe('new.');
    expect(registry.size).toBe(1);
  });

  it('REJECT throws naming both owners and keeps the first', () => {
    const registry = new ToolRegistry();
    registry.register(tool('read_file', 'first'), { owner: '@toolsys/a' });
    expect(() =>
      registry.register(tool('read_file', 'second'), { policy: 'REJECT', owner: '@toolsys/b' }),
    ).toThrow(new DuplicateToolError('read_file', '@toolsys/a', '@toolsys/b'));
    expect(registry.get('read_file')?.description).toBe('first.');
  });

  it('KEEP_EXISTING keeps the first silently', () => {
    const registry = new ToolRegistry();
    registry.register(tool('read_file', 'first'));
    expect(registry.register(tool('read_file', 'second'), { policy: 'KEEP_EXISTING' })).toBe(
      'kept',
    );
    expect(registry.get('read_file')?.description).toBe('first.');
  });

  it('holds the metadata a tool declares, tags defaulting to none', () => {
    const registry = new ToolRegistry();
    registry.register(tool('delete_file'));
    registry.register(
      defineTestTool({
        ...tool('read_file'),
        metadata: {
          category: 'file',
          risk: 'MEDIUM',
          tags: ['x'],
          annotations: ToolHints.readOnly,
        },
      }),
    );
    expect(registry.get('delete_file')?.metadata).toMatchObject({
      category: 'file',
      risk: 'HIGH',
      tags: [],
    });
    expect(registry.get('read_file')?.metadata).toMatchObject({
      category: 'file',
      risk: 'MEDIUM',
      tags: ['x'],
    });
  });

  it('lists by category in catalog order with sorted ids', () => {
    const registry = new ToolRegistry();
    for (const id of ['write_file', 'calculate', 'read_file', 'shell_execute'])
      registry.register(tool(id));
    expect(registry.listByCategory('file').map((t) => t.id)).toEqual(['read_file', 'write_file']);
    expect(registry.groupByCategory().map((g) => g.category)).toEqual(['shell', 'file', 'utility']);
    expect(registry.ids()).toEqual(['calculate', 'read_file', 'shell_execute', 'write_file']);
  });

  it('refuses malformed ids at registration', () => {
    expect(() => new ToolRegistry().register(tool('Bad Id'))).toThrow(/invalid/);
  });

  it('notifies listeners of changes and survives a failing listener', () => {
    const registry = new ToolRegistry();
    const changes: string[] = [];
    registry.onChange(() => {
      throw new Error('listener bug');
    });
    const stop = registry.onChange((change) => changes.push(`${change.type}:${change.id}`));
    registry.register(tool('calculate'));
    registry.register(tool('calculate'));
    registry.unregister('calculate');
    stop();
    registry.register(tool('calculate'));
    expect(changes).toEqual([
      'registered:calculate',
      'replaced:calculate',
      'unregistered:calculate',
    ]);
  });

  it('copies a tool with overrides as own fields, extra fields kept through the prototype', () => {
    class Wrapped {
      readonly id = 'calculate';
      readonly description = 'Adds.';
      readonly inputSchema = ToolSchema.empty();
      readonly metadata = TEST_TOOL_METADATA;
      get extra(): string {
        return 'kept';
      }
      riskOf(): 'LOW' | 'HIGH' {
        return this.metadata === TEST_TOOL_METADATA ? 'HIGH' : 'LOW';
      }
      execute(): string {
        return this.description;
      }
    }
    const copy = ToolRegistry.copyTool(new Wrapped(), { metadata: FIXTURE_METADATA.read_file });
    const spread = { ...copy };
    expect(spread.metadata).toBe(FIXTURE_METADATA.read_file);
    expect(Object.keys(spread).sort()).toEqual([
      'description',
      'execute',
      'id',
      'inputSchema',
      'metadata',
      'riskOf',
    ]);
    expect(spread.execute({}, undefined as never)).toBe('Adds.');
    expect(spread.riskOf?.({})).toBe('HIGH');
    expect((copy as unknown as Wrapped).extra).toBe('kept');
  });
});
