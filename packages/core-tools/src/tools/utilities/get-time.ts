// `get_time`: the current date and time in a time zone.
import {
  type AnyToolDefinition,
  defineTool,
  RunPolicies,
  successResult,
  ToolError,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';

const getTimeSchema = ToolSchema.object({
  timezone: z.string().optional().describe("IANA zone; default the host's."),
});

/** The `get_time` tool. */
export function createGetTimeTool(): AnyToolDefinition {
  return defineTool({
    id: 'get_time',
    description: 'Current date and time in a time zone.',
    inputSchema: getTimeSchema,
    outputSchema: ToolSchema.object({
      iso: z.string(),
      timezone: z.string(),
      weekday: z.string(),
      unixMs: z.number(),
    }),
    metadata: { category: 'system', risk: 'LOW', tags: ['time'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ timezone }) {
      const zone = timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      let parts: Intl.DateTimeFormatPart[];
      try {
        parts = new Intl.DateTimeFormat('en-US', {
          timeZone: zone,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          weekday: 'long',
          hourCycle: 'h23',
          timeZoneName: 'longOffset',
        }).formatToParts(new Date());
      } catch {
        throw new ToolError(
          ToolErrorCode.INVALID_ARGUMENT,
          `timezone: unknown time zone "${zone}"`,
          { field: 'timezone', hint: 'Use an IANA name such as "America/New_York" or "UTC".' },
        );
      }
      const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
      const offsetName = part('timeZoneName').replace('GMT', '');
      const offset = offsetName === '' ? '+00:00' : offsetName;
      const iso = `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset === '+00:00' ? 'Z' : offset}`;
      const data = { iso, timezone: zone, weekday: part('weekday'), unixMs: Date.now() };
      return successResult(`${iso} (${data.weekday}, ${zone})`, { data });
    },
  });
}
