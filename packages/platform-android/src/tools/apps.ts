import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AnyToolDefinition,
  cleanUntrustedLine,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { resolveWorkspacePath } from '@toolsys/platform';
import { z } from 'zod';
import type { AndroidDevice } from '../android-device.js';
import type { AndroidToolSession } from '../android-session.js';
import { parsePackageDetails, parsePackageList } from '../parsers/packages.js';
import { quoteShell } from '../shell-quote.js';
import { defineDeviceTool, packageField, serialField } from './device-tool.js';

/** Whether a package is installed (`pm path` prints `package:…` only for installed ones). */
async function isInstalled(
  device: AndroidDevice,
  packageName: string,
  signal: AbortSignal,
): Promise<boolean> {
  const output = await device.shell(`pm path ${quoteShell(packageName)}`, { signal });
  return output.includes('package:');
}

function notInstalled(packageName: string) {
  return failureResult(
    ToolErrorCode.NOT_FOUND,
    `Package ${packageName} is not installed on the device.`,
    {
      field: 'package',
      hint: 'Check the exact name with app_list (filter by part of the name), then retry.',
    },
  );
}

/** `app_list`, `app_launch`, `app_install`, `app_uninstall`, `app_force_stop` and `app_info`. */
export function createAppTools(session: AndroidToolSession): AnyToolDefinition[] {
  return [
    defineDeviceTool(session, {
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
      metadata: {
        category: 'app',
        risk: 'LOW',
        tags: ['android', 'adb'],
        annotations: ToolHints.readOnly,
      },
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
    }),
    defineDeviceTool(session, {
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
        tags: ['android', 'adb'],
        annotations: { ...ToolHints.mutating, idempotentHint: true },
      },
      runPolicy: RunPolicies.mutating,
      async execute(args, { device, signal, session: shared }) {
        if (!(await isInstalled(device, args.package, signal))) return notInstalled(args.package);
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
            const locked =
              telemetry.locked === true ? ' The device is locked; unlock it first.' : '';
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
    }),
    defineDeviceTool(session, {
      id: 'app_install',
      description:
        "Installs (or updates) an APK file from the workspace on the Android device: streams it to the device, runs the package manager, and removes the copy. Returns the package manager's verdict. Use app_uninstall to remove an app.",
      inputSchema: ToolSchema.object({
        path: z
          .string()
          .min(1)
          .max(4096)
          .describe('Path of the .apk file, relative to the workspace root.'),
        replace: z
          .boolean()
          .default(true)
          .describe(
            'Replace an installed app of the same package, keeping its data (pm install -r).',
          ),
        grantPermissions: z
          .boolean()
          .default(false)
          .describe('Grant every runtime permission the app requests (pm install -g).'),
        serial: serialField,
      }),
      outputSchema: ToolSchema.object({ path: z.string(), installed: z.boolean() }),
      metadata: {
        category: 'app',
        risk: 'HIGH',
        tags: ['android', 'adb', 'install'],
        annotations: { ...ToolHints.mutating, sensitiveAction: true },
      },
      runPolicy: { ...RunPolicies.mutating, timeoutMs: 180_000 },
      async execute(args, { device, signal, session: shared }) {
        const file = await resolveWorkspacePath(shared.workspaceRoot, args.path);
        if (!file.exists) {
          return failureResult(
            ToolErrorCode.NOT_FOUND,
            `${args.path} does not exist in the workspace.`,
            {
              field: 'path',
              hint: 'Check the path with list_files, then retry.',
            },
          );
        }
        const info = await stat(file.absolute);
        if (!info.isFile()) {
          return failureResult(ToolErrorCode.INVALID_ARGUMENT, `${args.path} is not a file.`, {
            field: 'path',
          });
        }
        const handle = await open(file.absolute, 'r');
        const magic = Buffer.alloc(4);
        await handle.read(magic, 0, 4, 0).finally(() => handle.close());
        if (magic.readUInt32LE(0) !== 0x04034b50) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `${args.path} is not an APK (an APK is a zip archive; this file does not start with PK).`,
            {
              field: 'path',
              hint: 'Pass the path of a built .apk file.',
            },
          );
        }
        const remote = `/data/local/tmp/toolsys-${randomBytes(6).toString('hex')}.apk`;
        await device.push(createReadStream(file.absolute), remote, { signal });
        let output: string;
        try {
          const flags = `${args.replace ? ' -r' : ''}${args.grantPermissions ? ' -g' : ''}`;
          output = await device.shell(`pm install${flags} ${remote}`, {
            signal,
            timeoutMs: 170_000,
          });
        } finally {
          await device.shell(`rm -f ${remote}`).catch(() => '');
        }
        if (/^Success/m.test(output)) {
          return successResult(
            `Installed ${file.relative} on ${device.serial} (${info.size} bytes).`,
            {
              data: { path: file.relative, installed: true },
            },
          );
        }
        const failure =
          /Failure \[([^\]]*)\]/.exec(output)?.[1] ??
          output.trim().split('\n').at(-1) ??
          'no output';
        const code = failure.split(':')[0] ?? failure;
        const hints: Record<string, string> = {
          INSTALL_FAILED_ALREADY_EXISTS:
            'The app is already installed; retry with "replace": true.',
          INSTALL_FAILED_VERSION_DOWNGRADE:
            'The installed version is newer; uninstall it first (app_uninstall) or use a newer APK.',
          INSTALL_FAILED_UPDATE_INCOMPATIBLE:
            'The installed app is signed with another key; uninstall it first (app_uninstall).',
          INSTALL_FAILED_INSUFFICIENT_STORAGE: 'Free space on the device, then retry.',
          INSTALL_FAILED_OLDER_SDK: 'The APK needs a newer Android version than the device has.',
          INSTALL_FAILED_NO_MATCHING_ABIS:
            "The APK has no native code for this device's CPU; use a matching build.",
        };
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `Installing ${file.relative} failed: ${failure}`,
          {
            retryable: false,
            hint:
              hints[code] ??
              (code.startsWith('INSTALL_PARSE_FAILED')
                ? 'The file is not a valid APK; rebuild it.'
                : 'Read the reason, fix the APK or the device state, then retry.'),
            details: { reason: code },
          },
        );
      },
    }),
    defineDeviceTool(session, {
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
        tags: ['android', 'adb'],
        annotations: { ...ToolHints.destructive, sensitiveAction: true },
      },
      runPolicy: RunPolicies.mutating,
      async execute(args, { device, signal }) {
        if (!(await isInstalled(device, args.package, signal))) return notInstalled(args.package);
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
    }),
    defineDeviceTool(session, {
      id: 'app_force_stop',
      description:
        'Force-stops an app on the Android device (kills its processes; unsaved state in the app is lost). Use it to restart an app that hangs: app_force_stop, then app_launch.',
      inputSchema: ToolSchema.object({ package: packageField, serial: serialField }),
      metadata: {
        category: 'app',
        risk: 'MEDIUM',
        tags: ['android', 'adb'],
        annotations: { ...ToolHints.mutating, idempotentHint: true },
      },
      runPolicy: RunPolicies.mutating,
      async execute(args, { device, signal }) {
        if (!(await isInstalled(device, args.package, signal))) return notInstalled(args.package);
        const wasRunning =
          (await device.shell(`pidof ${quoteShell(args.package)}`, { signal })).trim() !== '';
        await device.shell(`am force-stop ${quoteShell(args.package)}`, { signal });
        return successResult(
          wasRunning
            ? `Force-stopped ${args.package}.`
            : `${args.package} was not running; nothing to stop.`,
        );
      },
    }),
    defineDeviceTool(session, {
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
      metadata: {
        category: 'app',
        risk: 'LOW',
        tags: ['android', 'adb'],
        annotations: ToolHints.readOnly,
      },
      runPolicy: RunPolicies.quickRead,
      async execute(args, { device, signal }) {
        const output = await device.shell(`dumpsys package ${quoteShell(args.package)}`, {
          signal,
        });
        const details = parsePackageDetails(output, args.package);
        if (!details) return notInstalled(args.package);
        const pidText = (
          await device.shell(`pidof ${quoteShell(args.package)}`, { signal })
        ).trim();
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
    }),
  ];
}
