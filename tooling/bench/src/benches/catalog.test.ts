import { countTokens } from '@toolsys/platform';
import { describe, expect, it } from 'vitest';
import { catalogCost } from './catalog.js';

describe('catalogCost', () => {
  it('counts the whole result as compact JSON, and each part of the tools', () => {
    const result = {
      tools: [
        {
          name: 'read_file',
          title: 'Read file',
          description: 'Reads a file.',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
          annotations: { readOnlyHint: true },
        },
        {
          name: 'wait',
          description: 'Pauses.',
          inputSchema: { type: 'object' },
          _meta: { 'dev.toolsys/tool': { risk: 'LOW' } },
          execution: { taskSupport: 'forbidden' },
        },
      ],
    };
    const cost = catalogCost(result);
    expect(cost.tools).toBe(2);
    expect(cost.tokens).toBe(countTokens(JSON.stringify(result)));
    expect(cost.bytes).toBe(Buffer.byteLength(JSON.stringify(result)));
    expect(cost.parts.description).toBe(countTokens('"Reads a file."') + countTokens('"Pauses."'));
    expect(cost.parts._meta).toBe(countTokens(JSON.stringify(result.tools[1]?._meta)));
    expect(cost.parts.outputSchema).toBe(0);
    expect(cost.parts.other).toBe(countTokens('{"taskSupport":"forbidden"}'));
    expect(cost.costliest.map((tool) => tool.name)).toEqual(['read_file', 'wait']);
  });
});
