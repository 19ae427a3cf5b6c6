import { failureResult, successResult, ToolErrorCode } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { boundResult, storedSize } from './bounded-result.js';

describe('boundResult', () => {
  it('returns a result within the bound as it is', () => {
    const result = successResult('small', { data: { a: 1 } });
    expect(boundResult(result, 1_000)).toBe(result);
  });

  it('cuts multi-byte text and data to the byte bound, saying so', () => {
    const result = successResult('\u{1F600}'.repeat(100_000), {
      data: { rows: Array.from({ length: 5_000 }, (_, i) => `row ${i}`) },
    });
    const bounded = boundResult(result, 50_000);
    expect(storedSize(bounded)).toBeLessThanOrEqual(50_000);
    expect(bounded.ok && bounded.content).toContain('[Result cut');
    expect(bounded.ok && Array.isArray((bounded.data as { rows: unknown }).rows)).toBe(true);
  });

  it('keeps a failure’s code and hint, dropping its details and the tail of its message', () => {
    const failure = failureResult(ToolErrorCode.EXECUTION_FAILED, 'x'.repeat(100_000), {
      hint: 'Try less.',
      details: { output: 'y'.repeat(500_000) },
    });
    const bounded = boundResult(failure, 20_000);
    expect(storedSize(bounded)).toBeLessThanOrEqual(20_000);
    expect(bounded).toMatchObject({
      ok: false,
      error: { code: 'EXECUTION_FAILED', hint: 'Try less.' },
    });
    expect(bounded.ok ? undefined : bounded.error.details).toBeUndefined();
    expect(bounded.ok ? '' : bounded.error.message).toMatch(
      /were cut to keep the stored result small/,
    );
  });
});
