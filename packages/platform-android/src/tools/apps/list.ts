import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { parsePackageList } from '../../parsers/packages.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

/** The `app_list` tool. */
export function createAppListTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'app_list',
    description:
      "Lists the packages installed on the Android device, sorted, optionally only user-installed or system ones and filtered by a substring of the package name. Use app_info for one app's version and permissions, app_launch to open one.",
    inputSchema: ToolSchema.object({
      filter: z
        .string()
        .max(200)
        .optional()
        .describe('Only packages whose name contains this text, e.g. "chat".'),
      kind: z
        .enum(['all', 'user', 'system'])
        .default('all')
        .describe(
          '"user": installed by the user (pm -3); "system": preinstalled (pm -s); "all": both.',
        ),
      limit: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(300)
        .describe('Most packages listed (1-1000).'),
      serial: serialField,
    }),
    outputSchema: ToolSchema.object({
      packages: z.array(z.string()),
      total: z.number(),
      truncated: z.boolean(),
    }),
    metadata: { category: 'app', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    async execute(args, { device, signal }) {
      const flag = args.kind === 'user' ? ' -3' : args.kind === 'system' ? ' -s' : '';
      const output = await device.shell(`pm list packages${flag}`, { signal });
      const needle = args.filter?.toLowerCase();
      const all = parsePackageList(output)
        .map((entry) => entry.packageName)
        .filter((name) => needle === undefined || name.toLowerCase().includes(needle))
        .sort();
      const packages = all.slice(0, args.limit);
      const truncated = all.length > packages.length;
      const header =
        all.length === 0
          ? `No ${args.kind === 'all' ? '' : `${args.kind} `}packages${args.filter ? ` matching "${args.filter}"` : ''} on ${device.serial}.`
          : `${all.length} ${args.kind === 'all' ? '' : `${args.kind} `}package${all.length === 1 ? '' : 's'}${args.filter ? ` matching "${args.filter}"` : ''} on ${device.serial}${truncated ? ` (first ${packages.length}; narrow with "filter")` : ''}:`;
      return successResult([header, ...packages].join('\n'), {
        data: { packages, total: all.length, truncated },
      });
    },
  });
}
