import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { parsePackageDetails } from '../../parsers/packages.js';
import { quoteShell } from '../../shell-quote.js';
import { defineDeviceTool, packageField, serialField } from '../device-tool.js';
import { notInstalled } from './shared.js';

/** The `app_info` tool. */
export function createAppInfoTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'app_info',
    description:
      'Shows one installed app: version, SDK levels, install and update times, installer, whether it is a system app, whether it runs now, and its requested, granted and denied permissions.',
    inputSchema: ToolSchema.object({ package: packageField, serial: serialField }),
    outputSchema: ToolSchema.object({
      packageName: z.string(),
      versionName: z.string().optional(),
      versionCode: z.number().optional(),
      system: z.boolean(),
      running: z.boolean(),
      pid: z.number().optional(),
      firstInstallTime: z.string().optional(),
      lastUpdateTime: z.string().optional(),
      requestedPermissions: z.array(z.string()),
      grantedPermissions: z.array(z.string()),
      deniedPermissions: z.array(z.string()),
    }),
    metadata: { category: 'app', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute(args, { device, signal }) {
      const output = await device.shell(`dumpsys package ${quoteShell(args.package)}`, {
        signal,
      });
      const details = parsePackageDetails(output, args.package);
      if (!details) return notInstalled(args.package);
      const pidText = (await device.shell(`pidof ${quoteShell(args.package)}`, { signal })).trim();
      const pid = /^\d+/.exec(pidText)?.[0];
      const lines = [
        `${details.packageName}${details.versionName ? ` ${details.versionName}` : ''}${details.versionCode === undefined ? '' : ` (versionCode ${details.versionCode})`}${details.system ? ', system app' : ''}`,
        `running: ${pid ? `yes (pid ${pid})` : 'no'}`,
      ];
      if (details.minSdk !== undefined || details.targetSdk !== undefined)
        lines.push(`sdk: min ${details.minSdk ?? '?'}, target ${details.targetSdk ?? '?'}`);
      if (details.firstInstallTime) lines.push(`installed: ${details.firstInstallTime}`);
      if (details.lastUpdateTime) lines.push(`updated: ${details.lastUpdateTime}`);
      if (details.installer) lines.push(`installer: ${details.installer}`);
      lines.push(`granted permissions: ${details.grantedPermissions.join(', ') || 'none'}`);
      if (details.deniedPermissions.length > 0)
        lines.push(`denied permissions: ${details.deniedPermissions.join(', ')}`);
      lines.push(`requested permissions: ${details.requestedPermissions.length}`);
      // Version name, installer and permission names come from the app: one clean line each.
      return successResult(lines.map((line) => cleanUntrustedLine(line, 4_000)).join('\n'), {
        data: { ...details, running: pid !== undefined, ...(pid ? { pid: Number(pid) } : {}) },
      });
    },
  });
}
