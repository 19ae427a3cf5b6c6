import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { resolveWorkspacePath } from '@toolsys/platform';
import { z } from 'zod';
import type { AndroidToolSession } from '../../android-session.js';
import { defineDeviceTool, serialField } from '../device-tool.js';

/** The `app_install` tool. */
export function createAppInstallTool(session: AndroidToolSession): AnyToolDefinition {
  return defineDeviceTool(session, {
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
      tags: ['install'],
      annotations: { ...ToolHints.mutating, sensitiveAction: true },
      // Calls can take minutes: a client that supports tasks may run one as a task.
      taskSupport: 'optional',
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
        /Failure \[([^\]]*)\]/.exec(output)?.[1] ?? output.trim().split('\n').at(-1) ?? 'no output';
      const code = failure.split(':')[0] ?? failure;
      const hints: Record<string, string> = {
        INSTALL_FAILED_ALREADY_EXISTS: 'The app is already installed; retry with "replace": true.',
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
  });
}
