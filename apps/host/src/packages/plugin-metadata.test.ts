import { describe, expect, it } from 'vitest';
import { pluginToolMetadata } from './plugin-metadata.js';

describe('pluginToolMetadata', () => {
  it('makes a tool that declares nothing MEDIUM risk with cautious hints', () => {
    expect(pluginToolMetadata(undefined)).toEqual({
      category: 'utility',
      risk: 'MEDIUM',
      tags: [],
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
        sensitiveAction: false,
      },
    });
  });

  it('keeps a declared risk and category and fills the missing hints', () => {
    expect(
      pluginToolMetadata({ category: 'network', risk: 'LOW', annotations: { readOnlyHint: true } }),
    ).toEqual({
      category: 'network',
      risk: 'LOW',
      tags: [],
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
        sensitiveAction: false,
      },
    });
  });

  it('takes the risk from the hints when none is declared', () => {
    const openReadOnly = { readOnlyHint: true, openWorldHint: true };
    expect(pluginToolMetadata({ annotations: { readOnlyHint: true } }).risk).toBe('LOW');
    expect(pluginToolMetadata({ annotations: openReadOnly }).risk).toBe('MEDIUM');
    expect(pluginToolMetadata({ annotations: {} }).risk).toBe('MEDIUM');
    expect(pluginToolMetadata({ annotations: { destructiveHint: true } }).risk).toBe('HIGH');
  });

  it('ignores values that are not the kernel’s and marks a HIGH risk tool sensitive', () => {
    const metadata = pluginToolMetadata({
      category: 'weather',
      risk: 'low',
      annotations: { destructiveHint: 'yes', sensitiveAction: undefined },
    });
    expect(metadata).toMatchObject({ category: 'utility', risk: 'MEDIUM' });
    expect(pluginToolMetadata({ risk: 'HIGH' }).annotations.sensitiveAction).toBe(true);
  });
});
