import { createToolExecutor, isToolError, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createJsonTransformTools } from '../orchestration/json-transform.js';
import { assertJsonTextDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { createJsonPathTools } from './json-path.js';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

function thrownBy(work: () => void): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('assertJsonTextDepth', () => {
  it('accepts text nested up to the limit', () => {
    expect(thrownBy(() => assertJsonTextDepth(nested(MAX_JSON_DEPTH), 'json'))).toBeUndefined();
  });

  it('refuses deeper text with a non-retryable INVALID_ARGUMENT naming the depth limit', () => {
    const error = thrownBy(() => assertJsonTextDepth(nested(100_000), 'input'));
    expect(isToolError(error)).toBe(true);
    if (isToolError(error)) {
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe(
        'input: the document is nested more than 128 levels deep (the depth limit)',
      );
      expect(error.options).toMatchObject({ field: 'input' });
    }
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '['.repeat(1_000), b: '\\"[[[[', c: [1] });
    expect(thrownBy(() => assertJsonTextDepth(text, 'json'))).toBeUndefined();
  });
});

describe('deep JSON in the tools', () => {
  const registry = new ToolRegistry();
  registry.registerAll([...createJsonPathTools(), ...createJsonTransformTools()], {
    owner: 'test',
  });
  const executor = createToolExecutor({ registry });

  it('json_transform refuses 100k-deep JSON text instead of overflowing the stack', async () => {
    const result = await executor.execute('json_transform', {
      input: nested(100_000),
      operations: [],
    });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'input',
        retryable: false,
        message: 'input: the document is nested more than 128 levels deep (the depth limit)',
        hint: 'Send a sub-document nested at most 128 levels deep; do not retry the same input.',
      },
    });
  });

  it('json_transform refuses a 100k-deep structured value before validation', async () => {
    const result = await executor.execute('json_transform', {
      input: JSON.parse(nested(100_000)),
      operations: [],
    });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        retryable: false,
        message: 'arguments: nested more than 129 levels deep (the depth limit of json_transform)',
      },
    });
  });

  it('json_path refuses 100k-deep JSON text naming the depth limit', async () => {
    const result = await executor.execute('json_path', { json: nested(100_000), path: '$' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'json', retryable: false },
    });
  });

  it('json_transform still transforms a document at the depth limit', async () => {
    const result = await executor.execute('json_transform', {
      input: nested(MAX_JSON_DEPTH),
      operations: [{ op: 'get', path: '' }],
    });
    expect(result.ok).toBe(true);
  });
});
