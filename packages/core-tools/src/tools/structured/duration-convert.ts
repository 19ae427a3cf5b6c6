import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import { z } from 'zod';
import { defineStructuredTool } from './shared.js';

const luxon = lazyModule<typeof import('luxon')>('luxon', import.meta.url);

const UNIT_MS = {
  milliseconds: 1,
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
} as const;

type NumericUnit = keyof typeof UNIT_MS;
const NUMERIC_UNITS = Object.keys(UNIT_MS) as [NumericUnit, ...NumericUnit[]];
const TARGETS = ['iso', 'human', 'clock', ...NUMERIC_UNITS] as const;

/** Casual calendar lengths (as ISO 8601 tools commonly use): a month is 30 days, a year 365. */
const WORD_UNITS: Array<[RegExp, number]> = [
  [/^(ms|msecs?|milliseconds?)$/, 1],
  [/^(s|secs?|seconds?)$/, UNIT_MS.seconds],
  [/^(m|mins?|minutes?)$/, UNIT_MS.minutes],
  [/^(h|hrs?|hours?)$/, UNIT_MS.hours],
  [/^(d|days?)$/, UNIT_MS.days],
  [/^(w|wks?|weeks?)$/, UNIT_MS.weeks],
  [/^(mo|mos|months?)$/, 30 * UNIT_MS.days],
  [/^(y|yrs?|years?)$/, 365 * UNIT_MS.days],
];

const durationConvertSchema = ToolSchema.object({
  duration: z
    .union([z.string().min(1).max(200), z.number().finite()])
    .describe('"PT1H30M", "1h 30m", "01:30:00" or a number.'),
  unit: z.enum(NUMERIC_UNITS).default('seconds').describe('Unit of a number.'),
  to: z.enum(TARGETS).default('human').describe('Form to return.'),
});

function createDurationConvertTool(): AnyToolDefinition {
  return defineStructuredTool({
    id: 'duration_convert',
    description: 'Converts a duration between ISO 8601, words, clock time and numbers.',
    inputSchema: durationConvertSchema,
    outputSchema: ToolSchema.object({
      result: z.union([z.string(), z.number()]),
      milliseconds: z.number(),
      iso: z.string(),
      human: z.string(),
      clock: z.string(),
    }),
    tags: ['time', 'convert'],
    execute(args) {
      const milliseconds =
        typeof args.duration === 'number'
          ? args.duration * UNIT_MS[args.unit]
          : parseDuration(args.duration);
      if (!Number.isFinite(milliseconds) || Math.abs(milliseconds) > 8.64e15) {
        throw invalidArgument('duration', 'the duration is too large');
      }
      const forms = {
        milliseconds,
        iso: toIso(milliseconds),
        human: toHuman(milliseconds),
        clock: toClock(milliseconds),
      };
      const result =
        args.to === 'iso' || args.to === 'human' || args.to === 'clock'
          ? forms[args.to]
          : milliseconds / UNIT_MS[args.to];
      const rendered = typeof result === 'number' ? `${result} ${args.to}` : result;
      return successResult(rendered, { data: { result, ...forms } });
    },
  });
}

function parseDuration(text: string): number {
  const trimmed = text.trim();
  const negative = trimmed.startsWith('-');
  const body = negative ? trimmed.slice(1).trim() : trimmed;
  const sign = negative ? -1 : 1;
  if (/^P/i.test(body)) {
    const parsed = luxon().Duration.fromISO(body.toUpperCase());
    if (!parsed.isValid) {
      throw invalidArgument(
        'duration',
        `"${text}" is not a valid ISO 8601 duration`,
        'Write it like "PT1H30M" (time after T) or "P1DT2H", and retry.',
      );
    }
    return sign * parsed.toMillis();
  }
  const clock = /^(\d+):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?$/.exec(body);
  if (clock) {
    const [, first, second, third] = clock;
    // h:mm:ss, or mm:ss when there are only two parts.
    const ms =
      third === undefined
        ? Number(first) * UNIT_MS.minutes + Number(second) * UNIT_MS.seconds
        : Number(first) * UNIT_MS.hours +
          Number(second) * UNIT_MS.minutes +
          Number(third) * UNIT_MS.seconds;
    return sign * ms;
  }
  const tokens = body
    .toLowerCase()
    .replace(/,|\band\b/g, ' ')
    .match(/\d+(?:\.\d+)?\s*[a-z]+|\S+/g);
  if (!tokens) throw invalidArgument('duration', 'empty duration');
  let total = 0;
  for (const token of tokens) {
    const part = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/.exec(token);
    const factor = part
      ? WORD_UNITS.find(([pattern]) => pattern.test(part[2] ?? ''))?.[1]
      : undefined;
    if (!part || factor === undefined) {
      throw invalidArgument(
        'duration',
        `cannot read "${token}" in "${text}"`,
        'Use ISO 8601 ("PT1H30M"), clock time ("01:30:00") or number-unit pairs ("1h 30m", "2 days"), and retry.',
      );
    }
    total += Number(part[1]) * factor;
  }
  return sign * total;
}

function splitParts(milliseconds: number): Record<NumericUnit, number> {
  let rest = Math.abs(milliseconds);
  const parts = {} as Record<NumericUnit, number>;
  for (const unit of ['weeks', 'days', 'hours', 'minutes', 'seconds'] as const) {
    parts[unit] = Math.floor(rest / UNIT_MS[unit]);
    rest -= parts[unit] * UNIT_MS[unit];
  }
  parts.milliseconds = Math.round(rest * 1000) / 1000;
  return parts;
}

function toIso(milliseconds: number): string {
  let rest = Math.abs(milliseconds);
  const take = (unit: number) => {
    const count = Math.floor(rest / unit);
    rest -= count * unit;
    return count;
  };
  const days = take(UNIT_MS.days);
  const hours = take(UNIT_MS.hours);
  const minutes = take(UNIT_MS.minutes);
  const seconds = Number((rest / 1000).toFixed(3));
  let time = '';
  if (hours) time += `${hours}H`;
  if (minutes) time += `${minutes}M`;
  if (seconds) time += `${seconds}S`;
  const iso = `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
  return `${milliseconds < 0 ? '-' : ''}${iso === 'P' ? 'PT0S' : iso}`;
}

function toHuman(milliseconds: number): string {
  const parts = splitParts(milliseconds);
  const words = (['weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const)
    .filter((unit) => parts[unit] !== 0)
    .map((unit) => `${parts[unit]} ${parts[unit] === 1 ? unit.slice(0, -1) : unit}`);
  if (words.length === 0) return '0 seconds';
  return `${milliseconds < 0 ? '-' : ''}${words.join(' ')}`;
}

function toClock(milliseconds: number): string {
  const total = Math.abs(milliseconds);
  const hours = Math.floor(total / UNIT_MS.hours);
  const minutes = Math.floor((total % UNIT_MS.hours) / UNIT_MS.minutes);
  const seconds = (total % UNIT_MS.minutes) / 1000;
  const secondText = Number.isInteger(seconds)
    ? String(seconds).padStart(2, '0')
    : seconds.toFixed(3).padStart(6, '0');
  return `${milliseconds < 0 ? '-' : ''}${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}:${secondText}`;
}

/** `duration_convert`. */
export function createDurationConvertTools(): AnyToolDefinition[] {
  return [createDurationConvertTool()];
}
