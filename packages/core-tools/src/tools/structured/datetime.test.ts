import type { ToolResult } from '@toolsys/core-tool-registry';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createDatetimeTools } from './datetime.js';

const registry = new ToolRegistry();
registry.registerAll(createDatetimeTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute('datetime', args);
}

describe('datetime', () => {
  it('parses a UTC instant into a zone across the daylight-saving change', async () => {
    expect(
      await call({ operation: 'parse', date: '2026-03-29T01:30:00Z', zone: 'Europe/Paris' }),
    ).toEqual({
      ok: true,
      content: '2026-03-29T03:30:00+02:00 (Sunday, Europe/Paris)',
      data: {
        date: {
          iso: '2026-03-29T03:30:00+02:00',
          unixMs: Date.UTC(2026, 2, 29, 1, 30),
          zone: 'Europe/Paris',
          offset: '+02:00',
          weekday: 'Sunday',
        },
      },
    });
  });

  it('reads Unix timestamps in seconds and milliseconds, SQL and RFC 2822 text', async () => {
    expect(await call({ operation: 'parse', date: 0 })).toMatchObject({
      data: { date: { iso: '1970-01-01T00:00:00Z', unixMs: 0 } },
    });
    expect(await call({ operation: 'parse', date: 1_700_000_000_000 })).toMatchObject({
      data: { date: { unixMs: 1_700_000_000_000 } },
    });
    expect(await call({ operation: 'parse', date: '2026-03-01 14:30:00' })).toMatchObject({
      data: { date: { iso: '2026-03-01T14:30:00Z' } },
    });
    expect(
      await call({ operation: 'parse', date: 'Sun, 01 Mar 2026 14:30:00 +0100' }),
    ).toMatchObject({
      data: { date: { unixMs: Date.UTC(2026, 2, 1, 13, 30) } },
    });
  });

  it('reads a long digit string as a Unix timestamp and a four-digit one as a year', async () => {
    expect(await call({ operation: 'parse', date: '1700000000' })).toMatchObject({
      data: { date: { unixMs: 1_700_000_000_000 } },
    });
    expect(await call({ operation: 'parse', date: '2026' })).toMatchObject({
      data: { date: { iso: '2026-01-01T00:00:00Z' } },
    });
  });

  it('reads a custom layout with inputFormat', async () => {
    expect(
      await call({ operation: 'parse', date: '14/07/2026 09:05', inputFormat: 'dd/MM/yyyy HH:mm' }),
    ).toMatchObject({ data: { date: { iso: '2026-07-14T09:05:00Z', weekday: 'Tuesday' } } });
  });

  it('formats with Luxon tokens in a locale, or with a preset', async () => {
    expect(
      await call({
        operation: 'format',
        date: '2026-07-14',
        format: 'EEEE d MMMM yyyy',
        locale: 'fr-FR',
      }),
    ).toMatchObject({ ok: true, content: 'mardi 14 juillet 2026' });
    expect(
      await call({ operation: 'format', date: '2026-07-14T09:05:00Z', format: 'rfc2822' }),
    ).toMatchObject({
      content: 'Tue, 14 Jul 2026 09:05:00 +0000',
    });
    expect(
      await call({ operation: 'format', date: '2026-07-14T09:05:00Z', format: 'unix' }),
    ).toMatchObject({
      content: String(Date.UTC(2026, 6, 14, 9, 5) / 1000),
    });
  });

  it('adds calendar days across daylight saving, unlike 24 hours', async () => {
    const base = { operation: 'add', date: '2026-03-28T12:00:00', zone: 'Europe/Paris' };
    expect(await call({ ...base, duration: 'P1D' })).toMatchObject({
      data: { date: { iso: '2026-03-29T12:00:00+02:00' } },
    });
    expect(await call({ ...base, duration: { hours: 24 } })).toMatchObject({
      data: { date: { iso: '2026-03-29T13:00:00+02:00' } },
    });
  });

  it('subtracts months, clamping to the end of a shorter month', async () => {
    expect(
      await call({ operation: 'subtract', date: '2026-03-31', duration: { months: 1 } }),
    ).toMatchObject({
      data: { date: { iso: '2026-02-28T00:00:00Z' } },
    });
  });

  it('computes the difference in the requested units', async () => {
    expect(
      await call({
        operation: 'diff',
        date: '2026-01-01',
        other: '2026-03-01T12:00:00',
        units: ['days', 'hours'],
      }),
    ).toEqual({
      ok: true,
      content: '59 days, 12 hours (P59DT12H)',
      data: {
        difference: {
          milliseconds: (59 * 24 + 12) * 3_600_000,
          iso: 'P59DT12H',
          values: { days: 59, hours: 12 },
        },
      },
    });
  });

  it('converts the same instant to another zone', async () => {
    expect(
      await call({ operation: 'convert', date: '2026-07-14T09:05:00Z', toZone: 'Asia/Tokyo' }),
    ).toMatchObject({ data: { date: { iso: '2026-07-14T18:05:00+09:00', zone: 'Asia/Tokyo' } } });
  });

  it('rejects an unknown zone naming the field', async () => {
    expect(await call({ operation: 'parse', date: 'now', zone: 'Mars/Olympus' })).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'zone',
        message: 'zone: unknown time zone "Mars/Olympus"',
      },
    });
    expect(await call({ operation: 'convert', date: 'now', toZone: 'Nowhere' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'toZone' },
    });
  });

  it('rejects a date it cannot read naming the field', async () => {
    expect(await call({ operation: 'parse', date: 'next tuesday-ish' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'date' },
    });
    expect(await call({ operation: 'diff', date: 'now', other: '2026-13-45' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'other' },
    });
  });

  it('names the argument an operation needs when it is missing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ operation: 'format', date: 'now' }, 'format'],
      [{ operation: 'add', date: 'now' }, 'duration'],
      [{ operation: 'diff', date: 'now' }, 'other'],
      [{ operation: 'convert', date: 'now' }, 'toZone'],
      [{ operation: 'add', date: 'now', duration: 'one day' }, 'duration'],
      [{ operation: 'format', date: 'now', format: 'yyyy', locale: 'not a locale' }, 'locale'],
      [{ operation: 'teleport', date: 'now' }, 'operation'],
    ];
    for (const [args, field] of cases) {
      expect(await call(args)).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', field },
      });
    }
  });
});
