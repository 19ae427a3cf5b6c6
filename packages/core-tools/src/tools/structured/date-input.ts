import { invalidArgument } from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type { DateTime } from 'luxon';

const luxon = lazyModule<typeof import('luxon')>('luxon', import.meta.url);

/** Unix numbers above this are milliseconds, below it seconds (10^11 s is the year 5138). */
const MILLISECOND_THRESHOLD = 1e11;

/** Throws INVALID_ARGUMENT on `field` unless `zone` is an IANA zone, "UTC" or a fixed offset. */
export function checkZone(zone: string, field: string): void {
  if (!luxon().DateTime.now().setZone(zone).isValid) {
    throw invalidArgument(
      field,
      `unknown time zone "${zone}"`,
      'Use an IANA name such as "Europe/Paris", "America/New_York" or "UTC", or a fixed offset such as "UTC+2".',
    );
  }
}

/**
 * Reads a date as the datetime tools accept it: "now", ISO 8601, RFC 2822, HTTP or SQL text,
 * text in `inputFormat` (Luxon tokens), or a Unix timestamp. Times without an offset are read
 * in `zone`; the result is shown in `zone`.
 */
export function readDate(
  value: string | number,
  zone: string,
  field: string,
  inputFormat?: string,
): DateTime {
  let parsed: DateTime;
  if (typeof value === 'number') {
    const ms = Math.abs(value) >= MILLISECOND_THRESHOLD ? value : value * 1000;
    parsed = luxon().DateTime.fromMillis(ms, { zone });
  } else {
    const text = value.trim();
    if (text.toLowerCase() === 'now') {
      parsed = luxon().DateTime.now().setZone(zone);
    } else if (inputFormat !== undefined) {
      parsed = luxon().DateTime.fromFormat(text, inputFormat, { zone });
    } else if (/^-?\d{9,}(\.\d+)?$/.test(text)) {
      // Nine digits or more is a Unix timestamp; shorter digit runs ("2026") are ISO years.
      return readDate(Number(text), zone, field);
    } else {
      parsed = luxon().DateTime.fromISO(text, { zone });
      if (!parsed.isValid) parsed = luxon().DateTime.fromRFC2822(text, { zone });
      if (!parsed.isValid) parsed = luxon().DateTime.fromHTTP(text, { zone });
      if (!parsed.isValid) parsed = luxon().DateTime.fromSQL(text, { zone });
    }
  }
  if (!parsed.isValid) {
    throw invalidArgument(
      field,
      `cannot read the date ${JSON.stringify(value)}${inputFormat ? ` with the format "${inputFormat}"` : ''}${parsed.invalidExplanation ? ` (${parsed.invalidExplanation})` : ''}`,
      inputFormat
        ? 'Make the text match inputFormat (Luxon tokens such as dd/MM/yyyy HH:mm), and retry.'
        : 'Use ISO 8601 ("2026-03-01T14:30:00+01:00"), RFC 2822, SQL ("2026-03-01 14:30"), a Unix timestamp or "now"; for other layouts pass inputFormat.',
    );
  }
  return parsed;
}

/** The structured description of a date the datetime tools return. */
export interface DescribedDate {
  /** ISO 8601 with offset. */
  iso: string;
  /** Unix time in milliseconds. */
  unixMs: number;
  /** The zone the date is shown in. */
  zone: string;
  /** UTC offset such as +02:00. */
  offset: string;
  /** Day of the week in English. */
  weekday: string;
}

/** Describes a date for structured output. */
export function describeDate(date: DateTime): DescribedDate {
  return {
    iso: date.toISO({ suppressMilliseconds: true }) ?? '',
    unixMs: date.toMillis(),
    zone: date.zoneName ?? 'UTC',
    offset: date.toFormat('ZZ'),
    weekday: date.setLocale('en-US').toFormat('cccc'),
  };
}
