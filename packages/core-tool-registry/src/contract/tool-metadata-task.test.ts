import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTool } from './tool.js';
import { resolveMetadata, ToolHints, taskSupportOf } from './tool-metadata.js';
import { ToolSchema } from './tool-schema.js';

const base = { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly } as const;

describe('task support', () => {
  it('defaults to forbidden when a tool declares none', () => {
    expect(resolveMetadata(base).taskSupport).toBeUndefined();
    expect(taskSupportOf({ metadata: resolveMetadata(base) })).toBe('forbidden');
  });

  it('keeps optional and required as declared, and drops an explicit forbidden', () => {
    expect(resolveMetadata({ ...base, taskSupport: 'optional' }).taskSupport).toBe('optional');
    expect(resolveMetadata({ ...base, taskSupport: 'required' }).taskSupport).toBe('required');
    expect(resolveMetadata({ ...base, taskSupport: 'forbidden' })).not.toHaveProperty(
      'taskSupport',
    );
  });

  it('reaches the registered tool', () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        id: 'slow',
        description: 'Slow.',
        inputSchema: ToolSchema.object({}),
        metadata: { ...base, taskSupport: 'optional' },
        execute: () => 'done',
      }),
    );
    const tool = registry.get('slow');
    expect(tool && taskSupportOf(tool)).toBe('optional');
  });
});
