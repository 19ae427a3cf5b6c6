import {
  type AnyToolDefinition,
  failureResult,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { type BrowserToolSettings, tabField } from '../browser-tool.js';
import {
  defineTargetTool,
  IDEMPOTENT_METADATA,
  refField,
  reportDone,
  snapshotField,
  tagName,
} from './shared.js';

const dateSchema = ToolSchema.object({
  ref: refField,
  value: z.string().min(1).max(40).describe('E.g. "2026-03-14", "09:30", "2026-W11".'),
  tab: tabField,
  snapshot: snapshotField,
});

const DATE_FORMATS: Record<string, { pattern: RegExp; example: string }> = {
  date: { pattern: /^\d{4}-\d{2}-\d{2}$/, example: '2026-03-14' },
  time: { pattern: /^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/, example: '09:30' },
  'datetime-local': {
    pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/,
    example: '2026-03-14T09:30',
  },
  month: { pattern: /^\d{4}-\d{2}$/, example: '2026-03' },
  week: { pattern: /^\d{4}-W\d{2}$/, example: '2026-W11' },
};

/**
 * Converts an ISO value to the format of a date-like input: a full date-time given for a date
 * input keeps its date part, and so on. Returns undefined when the value does not fit the type.
 */
export function toInputValue(type: string, value: string): string | undefined {
  const trimmed = value.trim();
  const format = DATE_FORMATS[type];
  if (!format) return undefined;
  const candidates = [trimmed];
  const dateTime = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)/.exec(trimmed);
  if (dateTime) {
    candidates.push(`${dateTime[1]}T${dateTime[2]}`, dateTime[1] as string, dateTime[2] as string);
  }
  for (const candidate of candidates) {
    if (format.pattern.test(candidate) && isRealDate(type, candidate)) return candidate;
  }
  return undefined;
}

function isRealDate(type: string, value: string): boolean {
  if (type === 'date' || type === 'datetime-local') {
    const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [
      number,
      number,
      number,
    ];
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  }
  if (type === 'time' || type === 'datetime-local') {
    const time = type === 'time' ? value : value.slice(11);
    const [hours, minutes] = time.split(':').map(Number) as [number, number];
    if (hours > 23 || minutes > 59) return false;
  }
  if (type === 'month') {
    const month = Number(value.slice(5, 7));
    if (month < 1 || month > 12) return false;
  }
  if (type === 'week') {
    const week = Number(value.slice(6));
    if (week < 1 || week > 53) return false;
  }
  return true;
}

/** `browser_date_input`: sets a date, time, month or week field from an ISO value. */
export function createDateInputTool(settings: BrowserToolSettings): AnyToolDefinition {
  return defineTargetTool(settings, {
    id: 'browser_date_input',
    description: 'Sets a date, time, month or week field by ref from an ISO 8601 value.',
    inputSchema: dateSchema,
    metadata: IDEMPOTENT_METADATA,
    async act(args, target, call) {
      const { tag, type } = await tagName(target.locator);
      const timeout = call.settings.actionTimeoutMs;
      if (tag === 'input' && type in DATE_FORMATS) {
        const value = toInputValue(type, args.value);
        if (value === undefined) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `value: ${JSON.stringify(args.value)} is not a valid ${type} value`,
            {
              field: 'value',
              hint: `Pass an ISO value such as "${DATE_FORMATS[type]?.example}".`,
            },
          );
        }
        await target.locator.fill(value, { timeout });
        const now = await target.locator.inputValue({ timeout });
        const summary =
          now === value
            ? `Set ${target.label} (${type}) to ${value}.`
            : `The page did not keep ${value} in ${target.label} (it holds ${JSON.stringify(now)}); the value may be outside its min/max or step.`;
        return reportDone(call, target, summary, args.snapshot);
      }
      const editable = await target.locator.isEditable({ timeout: 2_000 }).catch(() => false);
      if (!editable) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `ref: ${target.label} is not a date, time or text field`,
          {
            field: 'ref',
            hint: 'Pick the input field of the date, or browser_click through the picker.',
          },
        );
      }
      await target.locator.fill(args.value.trim(), { timeout });
      await target.locator.dispatchEvent('change').catch(() => undefined);
      const now = await target.locator.inputValue({ timeout }).catch(() => '');
      const summary = `Typed ${JSON.stringify(args.value.trim())} into the text field ${target.label} (it now holds ${JSON.stringify(now)}).`;
      return reportDone(call, target, summary, args.snapshot);
    },
  });
}
