import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBaseConvertTools } from './base-convert.js';

const registry = new ToolRegistry();
registry.registerAll(createBaseConvertTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('base_convert', args);
}

describe('base_convert', () => {
  it('converts hexadecimal to binary', async () => {
    expect(await call({ value: 'ff', from: 16, to: 2 })).toEqual({
      ok: true,
      content: '11111111 (base 2)',
      data: { result: '11111111', decimal: '255', from: 16, to: 2 },
    });
  });

  it('detects 0x, 0b and 0o prefixes when from is omitted', async () => {
    expect(await call({ value: '0x1F' })).toMatchObject({ data: { result: '31', from: 16 } });
    expect(await call({ value: '0b101', to: 16 })).toMatchObject({
      data: { result: '5', from: 2 },
    });
    expect(await call({ value: '0o17' })).toMatchObject({ data: { result: '15', from: 8 } });
  });

  it('converts integers beyond 2^53 exactly, with sign, separators and upper case', async () => {
    const result = await call({ value: '-123_456_789_012_345_678_901', to: 36, uppercase: true });
    expect(result).toMatchObject({
      ok: true,
      data: {
        result: (-123456789012345678901n).toString(36).toUpperCase(),
        decimal: '-123456789012345678901',
      },
    });
  });

  it('rejects a digit that does not exist in the source base', async () => {
    const result = await call({ value: '129', from: 8 });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'value',
        message: 'value: "9" is not a digit in base 8',
      },
    });
  });

  it('rejects fractions', async () => {
    const result = await call({ value: '1.5' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'value' },
    });
  });

  it('rejects a base outside 2-36 through the schema', async () => {
    const result = await call({ value: '1', to: 37 });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'to' } });
  });
});

describe('base_convert properties', () => {
  it('agrees with BigInt#toString and round-trips for any integer and bases', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
        fc.integer({ min: 2, max: 36 }),
        fc.integer({ min: 2, max: 36 }),
        async (value, from, to) => {
          const forward = await call({ value: value.toString(from), from, to });
          expect(forward).toMatchObject({ ok: true, data: { result: value.toString(to) } });
          if (!forward.ok) return;
          const back = await call({
            value: (forward.data as { result: string }).result,
            from: to,
            to: from,
          });
          expect(back).toMatchObject({ ok: true, data: { result: value.toString(from) } });
        },
      ),
      { numRuns: 200 },
    );
  });
});
