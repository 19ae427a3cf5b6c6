import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createStringDistanceTools } from './string-distance.js';

const registry = new ToolRegistry();
registry.registerAll(createStringDistanceTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('string_distance', args);
}

describe('string_distance', () => {
  it('returns every metric by default', async () => {
    expect(await call({ a: 'kitten', b: 'sitting' })).toEqual({
      ok: true,
      content:
        'levenshtein: 3\ndamerau: 3\njaroWinkler: 0.746032\nhamming: n/a (different lengths)\nsimilarity: 0.571429',
      data: {
        levenshtein: 3,
        damerau: 3,
        jaroWinkler: 0.746032,
        hamming: null,
        similarity: 0.571429,
      },
    });
  });

  it('counts an adjacent swap as one edit in damerau and two in levenshtein', async () => {
    expect(await call({ a: 'abcd', b: 'acbd' })).toMatchObject({
      data: { levenshtein: 2, damerau: 1, hamming: 2 },
    });
  });

  it('gives the textbook Jaro-Winkler value for MARTHA and MARHTA', async () => {
    expect(await call({ a: 'MARTHA', b: 'MARHTA', metric: 'jaro_winkler' })).toEqual({
      ok: true,
      content: 'jaroWinkler: 0.961111',
      data: { jaroWinkler: 0.961111 },
    });
  });

  it('counts Unicode characters, not UTF-16 units, and can ignore case', async () => {
    expect(await call({ a: '😀a', b: '😁a', metric: 'levenshtein' })).toMatchObject({
      data: { levenshtein: 1 },
    });
    expect(
      await call({ a: 'Hello', b: 'hello', metric: 'similarity', ignoreCase: true }),
    ).toMatchObject({
      data: { similarity: 1 },
    });
  });

  it('treats two empty strings as identical', async () => {
    expect(await call({ a: '', b: '' })).toMatchObject({
      data: { levenshtein: 0, damerau: 0, jaroWinkler: 1, hamming: 0, similarity: 1 },
    });
  });

  it('rejects an unknown metric and a missing string naming the field', async () => {
    expect(await call({ a: 'x', b: 'y', metric: 'cosine' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'metric' },
    });
    expect(await call({ a: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'b' },
    });
  });

  it('rejects strings longer than 10000 characters', async () => {
    expect(await call({ a: 'x'.repeat(10_001), b: 'y' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'a' },
    });
  });
});
