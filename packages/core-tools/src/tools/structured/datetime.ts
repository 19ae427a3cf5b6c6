import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type { DateTime, Duration, DurationLikeObject } from 'luxon';
import { z } from 'zod';
import { checkZone, describeDate, readDate } from './date-input.js';
import { defineStructuredTool } from './shared.js';

const luxon = lazyModule<typeof import('luxon')>('luxon', import.meta.url);

const OPERATIONS = ['parse', 'format', 'add', 'subtract', 'diff', 'convert'] as const;
const DURATION_UNITS = [
  'years',
  'months',
  'weeks',
  'days',
  'hours',
  'minutes',
  'seconds',
  'milliseconds',
] as const;

/** Named output formats; anything else is read as Luxon format tokens. */
const PRESET_FORMATS: Record<string, (date: DateTime) => string> = {
  iso: (date) => date.toISO({ suppressMilliseconds: true }) ?? '',
  iso_date: (date) => date.toISODate() ?? '',
  rfc2822: (date) => date.toRFC2822() ?? '',
  http: (date) => date.toHTTP() ?? '',
  sql: (date) => date.toSQL({ includeOffset: false }) ?? '',
  unix: (date) => String(Math.floor(date.toSeconds())),
  unix_ms: (date) => String(date.toMillis()),
  relative: (date) => date.toRelative() ?? '',
};

const dateInput = z.union([z.string().min(1).max(200), z.number().finite()]);

const datetimeSchema = ToolSchema.object({
  operation: z.enum(OPERATIONS).describe('Operation.'),
  date: dateInput.describe('"now", ISO 8601, RFC 2822, SQL or Unix time.'),
  zone: z.string().min(1).max(64).default('UTC').describe('Zone of offset-less dates and results.'),
  inputFormat: z.string().min(1).max(100).optional().describe('Luxon tokens to parse date.'),
  format: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('iso, iso_date, rfc2822, http, sql, unix, unix_ms, relative or Luxon tokens.'),
  locale: z.string().min(2).max(35).default('en-US').describe('Locale for format.'),
  duration: z
    .union([
      z.string().min(2).max(100),
      z.object(
        Object.fromEntries(
          DURATION_UNITS.map((unit) => [unit, z.number().finite().optional()]),
        ) as Record<(typeof DURATION_UNITS)[number], z.ZodOptional<z.ZodNumber>>,
      ),
    ])
    .optional()
    .describe('add/subtract: "P1DT2H" or {"days": 3}.'),
  other: dateInput.optional().describe('diff: other - date.'),
  units: z
    .array(z.enum(DURATION_UNITS))
    .min(1)
    .max(8)
    .default(['days', 'hours', 'minutes', 'seconds'])
    .describe('diff: units.'),
  toZone: z.string().min(1).max(64).optional().describe('convert: target zone.'),
});

type DatetimeArgs = typeof datetimeSchema extends ToolSchema<infer T> ? T : never;

const describedDate = z.object({
  iso: z.string(),
  unixMs: z.number(),
  zone: z.string(),
  offset: z.string(),
  weekday: z.string(),
});

function createDatetimeTool(): AnyToolDefinition {
  return defineStructuredTool({
    id: 'datetime',
    description: 'Parses, formats, shifts, diffs or converts dates with IANA time zones.',
    inputSchema: datetimeSchema,
    outputSchema: ToolSchema.object({
      date: describedDate.optional(),
      formatted: z.string().optional(),
      difference: z
        .object({
          milliseconds: z.number(),
          iso: z.string(),
          values: z.record(z.string(), z.number()),
        })
        .optional(),
    }),
    tags: ['time', 'date'],
    execute(args) {
      checkZone(args.zone, 'zone');
      const date = readDate(args.date, args.zone, 'date', args.inputFormat);
      return run(args, date);
    },
  });
}

function run(args: DatetimeArgs, date: DateTime) {
  switch (args.operation) {
    case 'parse': {
      const described = describeDate(date);
      return successResult(`${described.iso} (${described.weekday}, ${described.zone})`, {
        data: { date: described },
      });
    }
    case 'format': {
      if (args.format === undefined) {
        throw invalidArgument(
          'format',
          'required for operation=format',
          'Pass a preset such as "rfc2822" or Luxon tokens such as "yyyy-MM-dd".',
        );
      }
      try {
        Intl.getCanonicalLocales(args.locale);
      } catch {
        throw invalidArgument(
          'locale',
          `"${args.locale}" is not a locale tag`,
          'Use a tag such as "en-US" or "de-DE".',
        );
      }
      const localised = date.setLocale(args.locale);
      const preset = PRESET_FORMATS[args.format];
      const formatted = preset ? preset(localised) : localised.toFormat(args.format);
      return successResult(formatted, { data: { formatted, date: describeDate(date) } });
    }
    case 'add':
    case 'subtract': {
      const duration = readDuration(args.duration);
      const shifted = args.operation === 'add' ? date.plus(duration) : date.minus(duration);
      if (!shifted.isValid) throw invalidArgument('duration', 'the result is out of range');
      const described = describeDate(shifted);
      return successResult(`${described.iso} (${described.weekday}, ${described.zone})`, {
        data: { date: described },
      });
    }
    case 'diff': {
      if (args.other === undefined) {
        throw invalidArgument('other', 'required for operation=diff', 'Pass the second date.');
      }
      const other = readDate(args.other, args.zone, 'other', args.inputFormat);
      const difference = other.diff(date, [...args.units]);
      const values: Record<string, number> = {};
      for (const unit of args.units) values[unit] = difference.get(unit);
      const milliseconds = other.toMillis() - date.toMillis();
      const iso = difference.toISO() ?? '';
      const text = args.units.map((unit) => `${values[unit]} ${unit}`).join(', ');
      return successResult(`${text} (${iso})`, {
        data: { difference: { milliseconds, iso, values } },
      });
    }
    case 'convert': {
      if (args.toZone === undefined) {
        throw invalidArgument(
          'toZone',
          'required for operation=convert',
          'Pass an IANA zone such as "Asia/Tokyo".',
        );
      }
      checkZone(args.toZone, 'toZone');
      const described = describeDate(date.setZone(args.toZone));
      return successResult(`${described.iso} (${described.weekday}, ${described.zone})`, {
        data: { date: described },
      });
    }
    default: {
      const unreachable: never = args.operation;
      throw new Error(`unknown operation ${String(unreachable)}`);
    }
  }
}

function readDuration(value: DatetimeArgs['duration']): Duration {
  if (value === undefined) {
    throw invalidArgument(
      'duration',
      'required for add and subtract',
      'Pass "P1D" or {"days": 1}.',
    );
  }
  const duration =
    typeof value === 'string'
      ? luxon().Duration.fromISO(value.trim().toUpperCase())
      : luxon().Duration.fromObject(value as DurationLikeObject);
  if (!duration.isValid) {
    throw invalidArgument(
      'duration',
      `not a valid duration: ${JSON.stringify(value)}`,
      'Use an ISO 8601 duration such as "P1DT2H" or an object such as {"days": 1, "hours": 2}.',
    );
  }
  return duration;
}

/** `datetime`. */
export function createDatetimeTools(): AnyToolDefinition[] {
  return [createDatetimeTool()];
}
