import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createCronNextTools } from './cron-next.js';

const registry = new ToolRegistry();
registry.registerAll(createCronNextTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('cron_next', args);
}

describe('cron_next', () => {
  it('lists weekday runs in a zone across the daylight-saving change', async () => {
    const result = await call({
      expression: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      count: 3,
      from: '2026-03-27T00:00:00Z',
    });
    const runs = [
      '2026-03-27T09:00:00+01:00',
      '2026-03-30T09:00:00+02:00',
      '2026-03-31T09:00:00+02:00',
    ];
    expect(result).toEqual({
      ok: true,
      content: `Next 3 runs (Europe/Paris):\n${runs.join('\n')}`,
      data: { expression: '0 9 * * 1-5', timezone: 'Europe/Paris', runs },
    });
  });

  it('understands steps, nicknames and seconds', async () => {
    expect(
      await call({ expression: '*/15 * * * *', count: 2, from: '2026-01-01T00:07:00Z' }),
    ).toMatchObject({
      data: { runs: ['2026-01-01T00:15:00Z', '2026-01-01T00:30:00Z'] },
    });
    expect(
      await call({ expression: '@monthly', count: 1, from: '2026-01-15T00:00:00Z' }),
    ).toMatchObject({
      data: { runs: ['2026-02-01T00:00:00Z'] },
    });
    expect(
      await call({ expression: '30 * * * * *', count: 1, from: '2026-01-01T00:00:00Z' }),
    ).toMatchObject({
      data: { runs: ['2026-01-01T00:00:30Z'] },
    });
  });

  it('combines day-of-month and day-of-week with OR like Vixie cron', async () => {
    const result = await call({ expression: '0 0 13 * 5', count: 3, from: '2026-02-01T00:00:00Z' });
    expect(result).toMatchObject({
      data: { runs: ['2026-02-06T00:00:00Z', '2026-02-13T00:00:00Z', '2026-02-20T00:00:00Z'] },
    });
  });

  it('says when an expression never runs', async () => {
    const result = await call({ expression: '0 0 30 2 *', from: '2026-01-01T00:00:00Z' });
    expect(result).toEqual({
      ok: true,
      content: '"0 0 30 2 *" never runs after 2026-01-01T00:00:00.000Z.',
      data: { expression: '0 0 30 2 *', timezone: 'UTC', runs: [] },
    });
  });

  it('starts from now when from is omitted', async () => {
    const before = Date.now();
    const result = await call({ expression: '* * * * *', count: 1 });
    if (!result.ok) throw new Error(result.error.message);
    const [first] = (result.data as { runs: string[] }).runs;
    expect(Date.parse(first ?? '')).toBeGreaterThan(before);
  });

  it('rejects a malformed expression naming it', async () => {
    const result = await call({ expression: 'every tuesday' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'expression' },
    });
    if (!result.ok) expect(result.error.message).toMatch(/^expression: invalid cron expression: /);
    expect(await call({ expression: '61 * * * *' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'expression' },
    });
  });

  it('rejects an unknown zone and an unreadable start date', async () => {
    expect(await call({ expression: '* * * * *', timezone: 'Mars/Olympus' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'timezone' },
    });
    expect(await call({ expression: '* * * * *', from: 'yesterday-ish' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'from' },
    });
  });
});
