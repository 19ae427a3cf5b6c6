import {
  type AnyToolDefinition,
  invalidArgument,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type { Cron } from 'croner';
import { z } from 'zod';
import { checkZone, readDate } from './date-input.js';
import { defineStructuredTool } from './shared.js';

const croner = lazyModule<typeof import('croner')>('croner', import.meta.url);
const luxon = lazyModule<typeof import('luxon')>('luxon', import.meta.url);

const cronNextSchema = ToolSchema.object({
  expression: z.string().min(1).max(200).describe('E.g. "0 9 * * 1-5", "@daily".'),
  timezone: z.string().min(1).max(64).default('UTC').describe('IANA zone.'),
  count: z.number().int().min(1).max(100).default(5).describe('Run times to list.'),
  from: z
    .union([z.string().min(1).max(200), z.number().finite()])
    .optional()
    .describe('Start after (ISO 8601 or Unix). Default now.'),
});

function createCronNextTool(): AnyToolDefinition {
  return defineStructuredTool({
    id: 'cron_next',
    description: 'Lists the next run times of a cron expression in a time zone (DST aware).',
    inputSchema: cronNextSchema,
    outputSchema: ToolSchema.object({
      expression: z.string(),
      timezone: z.string(),
      runs: z.array(z.string()),
    }),
    tags: ['time', 'cron'],
    execute(args) {
      checkZone(args.timezone, 'timezone');
      const from =
        args.from === undefined
          ? new Date()
          : readDate(args.from, args.timezone, 'from').toJSDate();
      let job: Cron;
      try {
        job = new (croner().Cron)(args.expression, { timezone: args.timezone, paused: true });
      } catch (error) {
        throw invalidArgument(
          'expression',
          `invalid cron expression: ${(error as Error).message}`,
          'Write 5 space-separated fields (minute hour day-of-month month day-of-week), e.g. "30 8 * * 1", and retry.',
        );
      }
      let dates: Date[];
      try {
        dates = job.nextRuns(args.count, from);
      } finally {
        job.stop();
      }
      const runs = dates.map(
        (date) =>
          luxon().DateTime.fromJSDate(date, { zone: args.timezone }).toISO({
            suppressMilliseconds: true,
          }) ?? date.toISOString(),
      );
      const content =
        runs.length === 0
          ? `"${args.expression}" never runs after ${from.toISOString()}.`
          : `Next ${runs.length} run${runs.length === 1 ? '' : 's'} (${args.timezone}):\n${runs.join('\n')}`;
      return successResult(content, {
        data: { expression: args.expression, timezone: args.timezone, runs },
      });
    },
  });
}

/** `cron_next`. */
export function createCronNextTools(): AnyToolDefinition[] {
  return [createCronNextTool()];
}
