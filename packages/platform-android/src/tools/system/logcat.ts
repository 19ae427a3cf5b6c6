import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally, markUntrusted, untrustedMarkers } from '@toolsys/core-tool-registry/text';
import { compileLinearRegex, LINEAR_REGEX_LIMITS } from '@toolsys/platform';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { isAtLeastLevel, type LogcatEntry, parseThreadtime } from '../../parsers/logcat.js';
import { quoteShell } from '../../shell-quote.js';
import { defineDeviceTool, packageField, serialField } from '../device-tool.js';

const MAX_LOGCAT_SCAN = 5_000;

/** Longest log line shown or matched, in characters (logd keeps at most ~4 KB of a message). */
const MAX_LOG_LINE = 4_100;

/** Longest stretch of pattern matching before other calls get the event loop, in ms. */
const MATCH_SLICE_MS = 10;

/** The `logcat` tool. */
export function createLogcatTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'logcat',
    description:
      'Reads the Android log (logcat dump, threadtime lines), filtered by app package or pid, minimum level, start time and a regular expression on tag and message, bounded to maxLines (the most recent ones). Use it to find crashes (level "E") after an action.',
    inputSchema: ToolSchema.object({
      package: packageField.optional().describe('Only lines of this running app (by its pid).'),
      pid: z.number().int().min(1).optional().describe('Only lines of this process id.'),
      level: z
        .enum(['V', 'D', 'I', 'W', 'E', 'F'])
        .default('V')
        .describe('Minimum level: V D I W E F.'),
      since: z
        .string()
        .regex(
          /^\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3})?$/,
          'expected "MM-DD HH:MM:SS.mmm" as logcat prints it',
        )
        .optional()
        .describe(
          'Only lines at or after this device time, "MM-DD HH:MM:SS.mmm" (copy it from an earlier line).',
        ),
      regex: z
        .string()
        .max(500)
        .optional()
        .describe(`Regular expression matched against "TAG: message". ${LINEAR_REGEX_LIMITS}`),
      maxLines: z
        .number()
        .int()
        .min(1)
        .max(2000)
        .default(200)
        .describe('Most lines returned (1-2000); the most recent are kept.'),
      newestFirst: z.boolean().default(false).describe('Print the newest line first.'),
      serial: serialField,
    }),
    metadata: { category: 'system', risk: 'LOW', tags: ['logs'], annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute(args, { device, signal }) {
      // The model's pattern runs on the linear engine: no pattern can block the server.
      const pattern =
        args.regex === undefined ? undefined : compileLinearRegex(args.regex, {}, 'regex');
      let pid = args.pid;
      if (args.package !== undefined) {
        const pids = (await device.shell(`pidof ${quoteShell(args.package)}`, { signal })).trim();
        const first = /^\d+/.exec(pids)?.[0];
        if (first === undefined) {
          return failureResult(
            ToolErrorCode.NOT_FOUND,
            `${args.package} is not running, so it has no pid to filter by.`,
            {
              field: 'package',
              hint: 'Start it with app_launch, or filter by "regex" on its tag instead.',
            },
          );
        }
        pid = Number(first);
      }
      const since =
        args.since === undefined
          ? ''
          : ` -T ${quoteShell(args.since.includes('.') ? args.since : `${args.since}.000`)}`;
      const command = `logcat -d -v threadtime${pid === undefined ? '' : ` --pid=${pid}`}${since}${args.since === undefined ? ` -t ${MAX_LOGCAT_SCAN}` : ''}`;
      const output = await device.shell(command, { signal, timeoutMs: 30_000 });
      const all: LogcatEntry[] = [];
      let slice = performance.now();
      for (const entry of parseThreadtime(output)) {
        if (!isAtLeastLevel(entry.level, args.level)) continue;
        if (pattern !== undefined) {
          // Linear, but thousands of lines still take a while: yield so other calls go on.
          if (performance.now() - slice > MATCH_SLICE_MS) {
            await yieldToEventLoop();
            signal.throwIfAborted();
            slice = performance.now();
          }
          // logd keeps at most ~4 KB of a message; a longer line is matched on its first part.
          const text = `${entry.tag}: ${entry.message}`.slice(0, MAX_LOG_LINE);
          if (!pattern.matcher(text).find()) continue;
        }
        all.push(entry);
      }
      const kept = all.slice(-args.maxLines);
      if (args.newestFirst) kept.reverse();
      // Tag and message are the device's: cleaned, escaped to one line each, inside the markers.
      const tally = new CleaningTally();
      const lines = kept.map(
        (entry) =>
          `${entry.time} ${String(entry.pid).padStart(5)} ${String(entry.tid).padStart(5)} ${entry.level} ${tally.cleanLine(`${entry.tag}: ${entry.message}`, MAX_LOG_LINE)}`,
      );
      const dropped = all.length - kept.length;
      const header = `${kept.length} line${kept.length === 1 ? '' : 's'}${dropped > 0 ? ` (${dropped} older matching lines dropped; raise maxLines or narrow the filter)` : ''}${pid === undefined ? '' : ` of pid ${pid}`}, level ≥ ${args.level}:`;
      const removed = tally.describe();
      return successResult(
        kept.length === 0
          ? 'No log lines match.'
          : [
              header,
              untrustedMarkers('device-log').notice,
              markUntrusted(lines.join('\n'), 'device-log'),
              ...(removed ? [removed] : []),
            ].join('\n'),
        {
          data: { lines: kept.length, dropped, ...tally.toJSON() },
        },
      );
    },
  });
}
