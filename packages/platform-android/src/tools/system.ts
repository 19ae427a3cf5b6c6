import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  type AnyToolDefinition,
  CleaningTally,
  failureResult,
  markUntrusted,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
  untrustedMarkers,
} from '@toolsys/core-tool-registry';
import { compileLinearRegex, LINEAR_REGEX_LIMITS } from '@toolsys/platform';
import { z } from 'zod';
import type { AndroidToolSession } from '../android-session.js';
import { parseGetprop, parseWmDensity, parseWmSize } from '../parsers/device-state.js';
import { parseLocations } from '../parsers/location.js';
import { isAtLeastLevel, type LogcatEntry, parseThreadtime } from '../parsers/logcat.js';
import { parseNotifications } from '../parsers/notifications.js';
import { quoteShell } from '../shell-quote.js';
import { defineDeviceTool, packageField, serialField } from './device-tool.js';

const MAX_LOGCAT_SCAN = 5_000;
/** Longest log line shown or matched, in characters (logd keeps at most ~4 KB of a message). */
const MAX_LOG_LINE = 4_100;
/** Longest stretch of pattern matching before other calls get the event loop, in ms. */
const MATCH_SLICE_MS = 10;

/** `get_device_info`, `get_set_settings`, `logcat`, `get_location` and `notification_read`. */
export function createSystemTools(session: AndroidToolSession): AnyToolDefinition[] {
  return [
    defineDeviceTool(session, {
      id: 'get_device_info',
      description:
        'Describes the Android device: model, manufacturer, Android version and SDK, screen size and density, battery level, and its state now (screen on, locked, keyboard shown, foreground app, secure window). Call it first to check the device is usable.',
      inputSchema: ToolSchema.object({ serial: serialField }),
      outputSchema: ToolSchema.object({
        serial: z.string(),
        model: z.string().optional(),
        manufacturer: z.string().optional(),
        androidVersion: z.string().optional(),
        sdk: z.number().optional(),
        screen: z
          .object({ width: z.number(), height: z.number(), density: z.number().optional() })
          .optional(),
        batteryLevel: z.number().optional(),
        screenOn: z.boolean().optional(),
        locked: z.boolean().optional(),
        keyboardShown: z.boolean().optional(),
        secureWindow: z.boolean().optional(),
        foregroundPackage: z.string().optional(),
      }),
      metadata: {
        category: 'system',
        risk: 'LOW',
        tags: ['android', 'adb'],
        annotations: ToolHints.readOnly,
      },
      runPolicy: RunPolicies.quickRead,
      async execute(_args, { device, signal, session: shared }) {
        const [props, size, density, battery, telemetry] = await Promise.all([
          device.shell('getprop', { signal }),
          device.shell('wm size', { signal }),
          device.shell('wm density', { signal }),
          device.shell('dumpsys battery', { signal }),
          shared.telemetry(device, { signal }),
        ]);
        const properties = parseGetprop(props);
        const screen = parseWmSize(size);
        const dpi = parseWmDensity(density);
        const level = /^\s*level: (\d+)/m.exec(battery)?.[1];
        const data = {
          serial: device.serial,
          model: properties.get('ro.product.model'),
          manufacturer: properties.get('ro.product.manufacturer'),
          androidVersion: properties.get('ro.build.version.release'),
          sdk: properties.has('ro.build.version.sdk')
            ? Number(properties.get('ro.build.version.sdk'))
            : undefined,
          screen: screen
            ? { ...screen, ...(dpi === undefined ? {} : { density: dpi }) }
            : undefined,
          batteryLevel: level === undefined ? undefined : Number(level),
          screenOn: telemetry.screenOn,
          locked: telemetry.locked,
          keyboardShown: telemetry.keyboardShown,
          secureWindow: telemetry.secureWindow,
          foregroundPackage: telemetry.foreground?.packageName,
        };
        const yesNo = (value: boolean | undefined) =>
          value === undefined ? 'unknown' : value ? 'yes' : 'no';
        const lines = [
          `${data.manufacturer ?? ''} ${data.model ?? 'unknown model'} (${device.serial}), Android ${data.androidVersion ?? '?'} (SDK ${data.sdk ?? '?'})`.trim(),
          `screen: ${screen ? `${screen.width}x${screen.height}` : 'unknown'}${dpi === undefined ? '' : ` @ ${dpi} dpi`}; battery: ${data.batteryLevel === undefined ? 'unknown' : `${data.batteryLevel}%`}`,
          `state: screen on ${yesNo(data.screenOn)}, locked ${yesNo(data.locked)}, keyboard shown ${yesNo(data.keyboardShown)}, secure window ${yesNo(data.secureWindow)}`,
          `foreground: ${telemetry.foreground ? `${telemetry.foreground.packageName}${telemetry.foreground.activity ? ` (${telemetry.foreground.activity})` : ''}` : 'unknown'}`,
        ];
        return successResult(lines.join('\n'), { data: JSON.parse(JSON.stringify(data)) });
      },
    }),
    defineDeviceTool(session, {
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
        tags: ['android', 'adb', 'settings'],
        annotations: { ...ToolHints.mutating, idempotentHint: true, sensitiveAction: true },
      },
      runPolicy: RunPolicies.mutating,
      async execute(args, { device, signal }) {
        if (args.action !== 'list' && args.key === undefined) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `key: required for "${args.action}"`,
            { field: 'key' },
          );
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
    }),
    defineDeviceTool(session, {
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
      metadata: {
        category: 'system',
        risk: 'LOW',
        tags: ['android', 'adb', 'logs'],
        annotations: ToolHints.readOnly,
      },
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
    }),
    defineDeviceTool(session, {
      id: 'get_location',
      description:
        "Returns the device's last known location (latitude, longitude, accuracy) per provider from the location service. It does not request a new fix; if none is known, location is off or no app asked for one recently.",
      inputSchema: ToolSchema.object({ serial: serialField }),
      outputSchema: ToolSchema.object({
        latitude: z.number(),
        longitude: z.number(),
        provider: z.string(),
        accuracyMeters: z.number().optional(),
      }),
      metadata: {
        category: 'system',
        risk: 'LOW',
        tags: ['android', 'adb', 'location'],
        annotations: { ...ToolHints.readOnly, sensitiveAction: true },
      },
      runPolicy: RunPolicies.quickRead,
      async execute(_args, { device, signal }) {
        const locations = parseLocations(await device.shell('dumpsys location', { signal }));
        const best =
          locations.find((location) => location.provider === 'fused') ??
          locations.find((location) => location.provider === 'gps') ??
          locations[0];
        if (!best) {
          return failureResult(ToolErrorCode.NOT_FOUND, 'The device has no last known location.', {
            hint: 'Location may be off, or no app has asked for a fix recently; open a maps app (app_launch) and retry.',
          });
        }
        return successResult(
          `${best.latitude}, ${best.longitude} (${best.provider}${best.accuracyMeters === undefined ? '' : `, ±${best.accuracyMeters} m`})`,
          { data: best },
        );
      },
    }),
    defineDeviceTool(session, {
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
        tags: ['android', 'adb', 'notifications'],
        annotations: { ...ToolHints.readOnly, sensitiveAction: true },
      },
      runPolicy: RunPolicies.quickRead,
      async execute(args, { device, signal }) {
        const all = parseNotifications(
          await device.shell('dumpsys notification --noredact', { signal }),
        )
          .filter(
            (notification) =>
              args.package === undefined || notification.packageName === args.package,
          )
          .sort((a, b) => (b.postTime ?? 0) - (a.postTime ?? 0));
        const shown = all.slice(0, args.limit);
        if (shown.length === 0) {
          return successResult(
            args.package
              ? `No notifications from ${args.package}.`
              : 'No notifications are posted.',
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
    }),
  ];
}
