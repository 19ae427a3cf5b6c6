import { describe, expect, it } from 'vitest';
import { ToolErrorCode } from '../contract/tool-error.js';
import { failureResult, successResult } from '../contract/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTestTool } from '../testing/test-tool.js';
import { createToolExecutor } from './pipeline-tool-executor.js';
import { limitResult, MAX_RESULT_CHARS, measureJson } from './result-budget.js';

function totalChars(result: ReturnType<typeof limitResult>): number {
  if (!result.ok) return result.error.message.length;
  return (
    result.content.length + (result.data === undefined ? 0 : JSON.stringify(result.data).length)
  );
}

describe('limitResult', () => {
  it('returns a result within the budget as the same object', () => {
    const result = successResult('short', { data: { rows: [1, 2, 3] } });
    expect(limitResult(result)).toBe(result);
  });

  it('cuts a long text and says what was cut and what to do next', () => {
    const limited = limitResult(successResult('a'.repeat(1_000_000)));
    expect(limited.ok).toBe(true);
    if (!limited.ok) return;
    expect(limited.content.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    expect(limited.content.startsWith('a'.repeat(1_000))).toBe(true);
    expect(limited.content).toContain(
      '[Result cut: the tool returned 1,000,000 characters of text; one result holds at most 200,000 characters, so the rest is not shown. Next: ask for less',
    );
  });

  it('holds text and structured data together within the budget, keeping the data’s shape', () => {
    const data = {
      rows: Array.from({ length: 50_000 }, (_, index) => ({ id: index, name: 'x'.repeat(40) })),
      total: 50_000,
    };
    const limited = limitResult(successResult(JSON.stringify(data), { data }));
    expect(totalChars(limited)).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    if (!limited.ok) return;
    const kept = limited.data as typeof data;
    expect(kept.total).toBe(50_000);
    expect(kept.rows.length).toBeGreaterThan(100);
    expect(kept.rows.length).toBeLessThan(50_000);
    expect(kept.rows[0]).toEqual({ id: 0, name: 'x'.repeat(40) });
    expect(limited.content).toContain('and structured data of more than 200,000 characters');
  });

  it('shortens one huge string in the data and keeps it a string', () => {
    const limited = limitResult(successResult('ok', { data: { blob: 'b'.repeat(9_000_000) } }));
    expect(totalChars(limited)).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    if (!limited.ok) return;
    expect(typeof (limited.data as { blob: unknown }).blob).toBe('string');
    expect((limited.data as { blob: string }).blob.endsWith('…')).toBe(true);
  });

  it('bounds an object of 300,000 keys', () => {
    const wide: Record<string, number> = {};
    for (let index = 0; index < 300_000; index++) wide[`k${index}`] = index;
    const limited = limitResult(successResult('ok', { data: wide }));
    expect(totalChars(limited)).toBeLessThanOrEqual(MAX_RESULT_CHARS + 5_000);
  });

  it('never ends a cut text inside a surrogate pair', () => {
    const limited = limitResult(successResult('😀'.repeat(150_000)), { maxChars: 1_001 });
    if (!limited.ok) return;
    const text = limited.content.slice(0, limited.content.indexOf('\n\n[Result cut'));
    expect(text).toBe('😀'.repeat(text.length / 2));
  });

  it('leaves failures alone', () => {
    const failure = failureResult(ToolErrorCode.NOT_FOUND, 'missing');
    expect(limitResult(failure)).toBe(failure);
  });

  it('counts JSON without building it, and stops past the limit', () => {
    const exact = JSON.stringify({ a: 'xy', b: [1, null] }).length;
    expect(measureJson({ a: 'xy', b: [1, null] }, 1_000)).toBeGreaterThanOrEqual(exact);
    expect(measureJson({ a: 'xy', b: [1, null] }, 1_000)).toBeLessThanOrEqual(exact + 4);
    expect(measureJson('z'.repeat(10), 5)).toBeGreaterThan(5);
  });
});

describe('the executor holds every result within the budget', () => {
  it('cuts what any tool returns, text and data', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTestTool({
        id: 'huge',
        description: 'Returns a huge result.',
        execute: () =>
          successResult('t'.repeat(3_000_000), { data: { text: 'd'.repeat(3_000_000) } }),
      }),
    );
    const result = await createToolExecutor({ registry }).execute('huge', {});
    expect(totalChars(result)).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    expect(result.ok && result.content).toContain(
      '[Result cut: the tool returned 3,000,000 characters of text and structured data of more than 200,000 characters',
    );
  });
});
