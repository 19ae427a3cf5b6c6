import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createUnitConvertTools } from './unit-convert.js';

const registry = new ToolRegistry();
registry.registerAll(createUnitConvertTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('unit_convert', args);
}

describe('unit_convert', () => {
  it('converts kilometres to miles', async () => {
    const result = await call({ value: 5, from: 'km', to: 'mi' });
    expect(result).toMatchObject({
      ok: true,
      content: '5 km = 3.10685596119 mi',
      data: { value: 5, from: 'km', to: 'mi' },
    });
    if (result.ok) expect((result.data as { result: number }).result).toBeCloseTo(3.10685596, 6);
  });

  it('converts temperatures with offsets and accepts °C and fahrenheit spellings', async () => {
    expect(await call({ value: 100, from: '°C', to: 'fahrenheit' })).toMatchObject({
      ok: true,
      data: { result: 212 },
    });
    const kelvin = await call({ value: 0, from: 'degC', to: 'K' });
    expect(kelvin.ok && (kelvin.data as { result: number }).result).toBeCloseTo(273.15, 10);
  });

  it('converts compound and data-size units', async () => {
    const speed = await call({ value: 36, from: 'km/h', to: 'm/s' });
    expect(speed.ok && (speed.data as { result: number }).result).toBeCloseTo(10, 10);
    expect(await call({ value: 1, from: 'GiB', to: 'MiB' })).toMatchObject({
      data: { result: 1024 },
    });
  });

  it('rejects an unknown unit naming the field', async () => {
    const result = await call({ value: 1, from: 'blarg', to: 'm' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'from' } });
    const target = await call({ value: 1, from: 'm', to: 'blarg' });
    expect(target).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'to' } });
  });

  it('rejects units of different dimensions naming the target', async () => {
    const result = await call({ value: 1, from: 'km', to: 'kg' });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'to',
        message: 'to: cannot convert km to kg: they measure different things',
      },
    });
  });

  it('rejects a value that is not a number', async () => {
    const result = await call({ value: '5', from: 'km', to: 'mi' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'value' },
    });
  });
});
