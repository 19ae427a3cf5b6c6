import {
  type AnyToolDefinition,
  RunPolicies,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally, markUntrusted, untrustedMarkers } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { parseNotifications } from '../../parsers/notifications.js';
import { defineDeviceTool, packageField, serialField } from '../device-tool.js';

/** The `notification_read` tool. */
export function createNotificationReadTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
    id: 'notification_read',
    description:
      'Lists the notifications currently posted on the device (app package, title, text, post time), newest first, optionally of one app. Reading them does not dismiss them.',
    inputSchema: ToolSchema.object({
      package: packageField.optional().describe('Only notifications of this app.'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(100)
        .default(20)
        .describe('Most notifications returned (1-100).'),
      serial: serialField,
    }),
    metadata: {
      category: 'system',
      risk: 'LOW',
      tags: ['notifications'],
      annotations: { ...ToolHints.readOnly, sensitiveAction: true },
    },
    runPolicy: RunPolicies.quickRead,
    async execute(args, { device, signal }) {
      const all = parseNotifications(
        await device.shell('dumpsys notification --noredact', { signal }),
      )
        .filter(
          (notification) => args.package === undefined || notification.packageName === args.package,
        )
        .sort((a, b) => (b.postTime ?? 0) - (a.postTime ?? 0));
      const shown = all.slice(0, args.limit);
      if (shown.length === 0) {
        return successResult(
          args.package ? `No notifications from ${args.package}.` : 'No notifications are posted.',
          { data: { notifications: [] } },
        );
      }
      // Package, title and text are the device's: cleaned to one line each, inside the markers.
      const tally = new CleaningTally();
      const lines = shown.map(
        (notification) =>
          `- ${notification.packageName}${notification.postTime ? ` at ${new Date(notification.postTime).toISOString()}` : ''}: ${tally.cleanLine(notification.title ?? '(no title)')}${notification.text ? ` — ${tally.cleanLine(notification.text, 2_000)}` : ''}`,
      );
      const removed = tally.describe();
      return successResult(
        [
          `${all.length} notification${all.length === 1 ? '' : 's'}${all.length > shown.length ? ` (newest ${shown.length})` : ''}:`,
          untrustedMarkers('device-screen').notice,
          markUntrusted(lines.join('\n'), 'device-screen'),
          ...(removed ? [removed] : []),
        ].join('\n'),
        {
          data: { notifications: shown, ...tally.toJSON() },
        },
      );
    },
  });
}
