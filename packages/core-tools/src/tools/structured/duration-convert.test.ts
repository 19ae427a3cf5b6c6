import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createDurationConvertTools } from './duration-convert.js';

const registry = new ToolRegistry();
registry.registerAll(createDurationConvertTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('duration_convert', args);
}

describe('duration_convert', () => {
  it('converts an ISO 8601 duration to every form', async () => {
    expect(await call({ duration: 'P1DT2H30M' })).toEqual({
      ok: true,
      content: '1 day 2 hours 30 minutes',
      data: {
        result: '1 day 2 hours 30 minutes',
        milliseconds: 95_400_000,
        iso: 'P1DT2H30M',
        human: '1 day 2 hours 30 minutes',
        clock: '26:30:00',
      },
    });
  });

  it('reads words and returns a number in the requested unit', async () => {
    expect(await call({ duration: '1h 30m', to: 'minutes' })).toMatchObject({
      ok: true,
      content: '90 minutes',
      data: { result: 90 },
    });
    expect(
      await call({ duration: '2 days, 3 hours and 1.5 minutes', to: 'seconds' }),
    ).toMatchObject({
      data: { result: 2 * 86_400 + 3 * 3_600 + 90 },
    });
  });

  it('reads clock times and numbers in a unit', async () => {
    expect(await call({ duration: '01:02:03.5', to: 'iso' })).toMatchObject({
      data: { result: 'PT1H2M3.5S' },
    });
    expect(await call({ duration: '90:00', to: 'hours' })).toMatchObject({ data: { result: 1.5 } });
    expect(await call({ duration: 3_600, unit: 'seconds', to: 'clock' })).toMatchObject({
      data: { result: '01:00:00' },
    });
  });

  it('counts months as 30 days and years as 365 days', async () => {
    expect(await call({ duration: 'P1M', to: 'days' })).toMatchObject({ data: { result: 30 } });
    expect(await call({ duration: '1 year', to: 'days' })).toMatchObject({ data: { result: 365 } });
  });

  it('keeps the sign of negative durations and shows zero as PT0S', async () => {
    expect(await call({ duration: '-PT90M', to: 'iso' })).toMatchObject({
      data: { result: '-PT1H30M' },
    });
    expect(await call({ duration: 0, to: 'iso' })).toMatchObject({
      data: { result: 'PT0S', human: '0 seconds' },
    });
  });

  it('rejects text it cannot read naming the duration', async () => {
    const result = await call({ duration: '3 fortnights' });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'duration',
        message: 'duration: cannot read "3 fortnights" in "3 fortnights"',
      },
    });
  });

  it('rejects an invalid ISO duration and an unknown target', async () => {
    expect(await call({ duration: 'P1X' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'duration' },
    });
    expect(await call({ duration: 'PT1H', to: 'fortnights' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'to' },
    });
  });
});
