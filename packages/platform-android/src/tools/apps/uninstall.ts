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

/** The `app_uninstall` tool. */
export function createAppUninstallTool(session: AndroidToolSession): AnyToolDefinition {
  return defineInstalledAppTool(session, {
    id: 'app_uninstall',
    description:
      "Uninstalls an app from the Android device and deletes its data (unless keepData). Cannot remove system apps. Irreversible: the app's data is lost.",
    inputSchema: ToolSchema.object({
      package: packageField,
      keepData: z
        .boolean()
        .default(false)
        .describe("Keep the app's data and cache (pm uninstall -k)."),
      serial: serialField,
    }),
    metadata: {
      category: 'app',
      risk: 'HIGH',
      annotations: { ...ToolHints.destructive, sensitiveAction: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute(args, { device, signal }) {
      const output = await device.shell(
        `pm uninstall${args.keepData ? ' -k' : ''} ${quoteShell(args.package)}`,
        { signal, timeoutMs: 60_000 },
      );
      if (/^Success/m.test(output))
        return successResult(`Uninstalled ${args.package} from ${device.serial}.`);
      const reason = /Failure \[([^\]]*)\]/.exec(output)?.[1] ?? output.trim();
      return failureResult(
        ToolErrorCode.EXECUTION_FAILED,
        `Uninstalling ${args.package} failed: ${reason}`,
        {
          retryable: false,
          hint: 'System apps cannot be uninstalled; check app_info ("system") and choose another approach.',
        },
      );
    },
  });
}
