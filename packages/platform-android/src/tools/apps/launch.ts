import { setTimeout as delay } from 'node:timers/promises';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { quoteShell } from '../../shell-quote.js';
import { packageField, serialField } from '../device-tool.js';
import { defineInstalledAppTool } from './shared.js';

/** The `app_launch` tool. */
export function createAppLaunchTool(session: AndroidToolSession): AnyToolDefinition {
  return defineInstalledAppTool(session, {
    id: 'app_launch',
    description:
      'Opens an app on the Android device (its launcher activity, or a given activity) and waits until it is in the foreground. Returns the foreground activity. Use app_list to find the package name; use ui_dump next to see the screen.',
    inputSchema: ToolSchema.object({
      package: packageField,
      activity: z
        .string()
        .regex(
          /^\.?[A-Za-z_][\w.$]*$/,
          'expected an activity class such as .MainActivity or com.example.MainActivity',
        )
        .optional()
        .describe(
          'Activity to start (".MainActivity" or fully qualified). Default: the app\'s launcher activity.',
        ),
      waitMs: z
        .number()
        .int()
        .min(0)
        .max(30_000)
        .default(10_000)
        .describe('How long to wait for the app to reach the foreground, in ms (0-30000).'),
      serial: serialField,
    }),
    outputSchema: ToolSchema.object({
      package: z.string(),
      activity: z.string().optional(),
      foreground: z.boolean(),
    }),
    metadata: {
      category: 'app',
      risk: 'MEDIUM',
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute(args, { device, signal, session: shared }) {
      const command =
        args.activity === undefined
          ? `monkey -p ${quoteShell(args.package)} -c android.intent.category.LAUNCHER 1`
          : `am start -W -n ${quoteShell(`${args.package}/${args.activity}`)}`;
      const output = await device.shell(command, { signal, timeoutMs: 30_000 });
      if (/No activities found to run|Error type \d|Error: /.test(output)) {
        const reason = /Error: (.*)/.exec(output)?.[1] ?? 'the app has no launcher activity';
        return failureResult(
          ToolErrorCode.NOT_FOUND,
          `Could not start ${args.package}: ${reason.trim()}`,
          {
            field: args.activity === undefined ? 'package' : 'activity',
            hint:
              args.activity === undefined
                ? 'The app has no launcher activity; pass "activity" (app_info lists nothing about activities, check the app\'s manifest).'
                : 'Check the activity name (it must be exported), or omit "activity" to use the launcher activity.',
          },
        );
      }
      const deadline = Date.now() + args.waitMs;
      for (;;) {
        const telemetry = await shared.telemetry(device, { signal });
        const foreground = telemetry.foreground;
        if (foreground?.packageName === args.package) {
          const activity = foreground.activity;
          return successResult(
            `${args.package} is in the foreground${activity ? ` (${activity})` : ''}.`,
            {
              data: {
                package: args.package,
                ...(activity ? { activity } : {}),
                foreground: true,
              },
            },
          );
        }
        if (Date.now() >= deadline) {
          const locked = telemetry.locked === true ? ' The device is locked; unlock it first.' : '';
          return failureResult(
            ToolErrorCode.TIMEOUT,
            `${args.package} was started but is not in the foreground after ${args.waitMs} ms (foreground: ${foreground?.packageName ?? 'unknown'}).${locked}`,
            {
              hint: 'Call ui_dump to see what is on screen (a dialog or the lock screen may be in front), then retry.',
            },
          );
        }
        await delay(250, undefined, { signal });
      }
    },
  });
}
