import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import type { AndroidToolSession } from '../../android-session.js';
import { quoteShell } from '../../shell-quote.js';
import { packageField, serialField } from '../device-tool.js';
import { defineInstalledAppTool } from './shared.js';

/** The `app_force_stop` tool. */
export function createAppForceStopTool(session: AndroidToolSession): AnyToolDefinition {
  return defineInstalledAppTool(session, {
    id: 'app_force_stop',
    description:
      'Force-stops an app on the Android device (kills its processes; unsaved state in the app is lost). Use it to restart an app that hangs: app_force_stop, then app_launch.',
    inputSchema: ToolSchema.object({ package: packageField, serial: serialField }),
    metadata: {
      category: 'app',
      risk: 'MEDIUM',
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute(args, { device, signal }) {
      const wasRunning =
        (await device.shell(`pidof ${quoteShell(args.package)}`, { signal })).trim() !== '';
      await device.shell(`am force-stop ${quoteShell(args.package)}`, { signal });
      return successResult(
        wasRunning
          ? `Force-stopped ${args.package}.`
          : `${args.package} was not running; nothing to stop.`,
      );
    },
  });
}
