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
import { defineDeviceTool, serialField } from '../device-tool.js';

/** The `get_set_settings` tool. */
export function createGetSetSettingsTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'get_set_settings',
    description:
      'Reads or changes Android settings (`settings get/put/list` in the system, secure or global table), e.g. screen_brightness, screen_off_timeout, airplane_mode_on. "put" changes device behaviour; read the value first with "get" so it can be restored.',
    inputSchema: ToolSchema.object({
      action: z
        .enum(['get', 'put', 'list'])
        .describe('"get" one key, "put" a new value, or "list" the whole table.'),
      namespace: z.enum(['system', 'secure', 'global']).describe('The settings table.'),
      key: z
        .string()
        .regex(/^[A-Za-z0-9_.:-]+$/, 'expected a settings key such as screen_brightness')
        .max(200)
        .optional()
        .describe('Setting name (get and put), e.g. screen_brightness.'),
      value: z.string().max(1000).optional().describe('New value (put only).'),
      serial: serialField,
    }),
    metadata: {
      category: 'system',
      risk: 'MEDIUM',
      tags: ['settings'],
      annotations: { ...ToolHints.mutating, idempotentHint: true, sensitiveAction: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute(args, { device, signal }) {
      if (args.action !== 'list' && args.key === undefined) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, `key: required for "${args.action}"`, {
          field: 'key',
        });
      }
      if (args.action === 'put' && args.value === undefined) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'value: required for "put"', {
          field: 'value',
        });
      }
      if (args.action === 'list') {
        const output = await device.shell(`settings list ${args.namespace}`, { signal });
        const lines = output.split('\n').filter((line) => line.includes('='));
        return successResult(
          `${lines.length} ${args.namespace} settings:\n${lines.slice(0, 400).join('\n')}${lines.length > 400 ? '\n… (first 400)' : ''}`,
        );
      }
      const key = args.key as string;
      const before = (
        await device.shell(`settings get ${args.namespace} ${quoteShell(key)}`, { signal })
      ).trim();
      if (args.action === 'get') {
        return successResult(
          before === 'null'
            ? `${args.namespace}/${key} is not set.`
            : `${args.namespace}/${key} = ${before}`,
          {
            data: { namespace: args.namespace, key, value: before === 'null' ? null : before },
          },
        );
      }
      const output = await device.shell(
        `settings put ${args.namespace} ${quoteShell(key)} ${quoteShell(args.value as string)}`,
        { signal },
      );
      if (output.trim() !== '') {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `settings put failed: ${output.trim().split('\n')[0]}`,
          {
            hint: 'Some secure and global keys need a privileged app; check the key name and namespace.',
          },
        );
      }
      const after = (
        await device.shell(`settings get ${args.namespace} ${quoteShell(key)}`, { signal })
      ).trim();
      return successResult(
        `${args.namespace}/${key}: ${before} → ${after} (restore with value "${before}").`,
        {
          data: {
            namespace: args.namespace,
            key,
            previous: before === 'null' ? null : before,
            value: after,
          },
        },
      );
    },
  });
}
