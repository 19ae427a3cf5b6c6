import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createTextDiffTools } from './text-diff.js';

const registry = new ToolRegistry();
registry.registerAll(createTextDiffTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('text_diff', args);
}

describe('text_diff', () => {
  it('returns a unified patch with line counts', async () => {
    const result = await call({ before: 'x\ny\nz\n', after: 'x\nY\nz\n' });
    const patch = [
      '===================================================================',
      '--- before',
      '+++ after',
      '@@ -1,3 +1,3 @@',
      ' x',
      '-y',
      '+Y',
      ' z',
      '',
    ].join('\n');
    expect(result).toEqual({
      ok: true,
      content: patch,
      data: { identical: false, added: 1, removed: 1, patch },
    });
  });

  it('uses the given labels and context size', async () => {
    const before = 'a\nb\nc\nd\ne\n';
    const after = 'a\nb\nC\nd\ne\n';
    const result = await call({
      before,
      after,
      context: 0,
      beforeLabel: 'v1.txt',
      afterLabel: 'v2.txt',
    });
    expect(result.ok && result.content).toContain(
      '--- v1.txt\n+++ v2.txt\n@@ -3,1 +3,1 @@\n-c\n+C\n',
    );
  });

  it('lists word changes inline as [-removed-]{+added+}', async () => {
    const result = await call({ before: 'the cat sat', after: 'the dog sat', mode: 'words' });
    expect(result).toEqual({
      ok: true,
      content: '+1 −1 token(s)\nthe [-cat-]{+dog+} sat',
      data: {
        identical: false,
        added: 1,
        removed: 1,
        changes: [
          { type: 'unchanged', value: 'the ', count: 1 },
          { type: 'removed', value: 'cat', count: 1 },
          { type: 'added', value: 'dog', count: 1 },
          { type: 'unchanged', value: ' sat', count: 1 },
        ],
      },
    });
  });

  it('compares characters, optionally ignoring case', async () => {
    const strict = await call({ before: 'Hello', after: 'hello', mode: 'chars' });
    expect(strict).toMatchObject({ ok: true, data: { identical: false, added: 1, removed: 1 } });
    const relaxed = await call({
      before: 'Hello',
      after: 'hello',
      mode: 'chars',
      ignoreCase: true,
    });
    expect(relaxed).toMatchObject({
      ok: true,
      content: 'No differences.',
      data: { identical: true },
    });
  });

  it('says "No differences." for equal texts', async () => {
    const result = await call({ before: 'same\n', after: 'same\n' });
    expect(result).toEqual({
      ok: true,
      content: 'No differences.',
      data: { identical: true, added: 0, removed: 0, patch: '' },
    });
  });

  it('gives up with EXECUTION_FAILED, not retryable, when the diff exceeds its time limit', async () => {
    const limited = new ToolRegistry();
    limited.registerAll(createTextDiffTools({ diffTimeLimitMs: 1 }), { owner: 'test' });
    const lines = (seed: number) =>
      Array.from({ length: 20_000 }, (_, i) => `line ${(i * seed) % 9973}`).join('\n');
    const result = await createToolExecutor({ registry: limited }).execute('text_diff', {
      before: lines(7),
      after: lines(13),
      mode: 'lines',
    });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'EXECUTION_FAILED',
        retryable: false,
        message: 'the texts are too different to diff within 0.001 s',
      },
    });
  });

  it('rejects an unknown mode naming the field', async () => {
    const result = await call({ before: 'a', after: 'b', mode: 'sideways' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'mode' } });
  });

  it('requires both texts', async () => {
    const result = await call({ before: 'a' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'after' },
    });
  });
});
