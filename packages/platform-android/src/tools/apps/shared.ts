// What the app tools share: whether a package is installed, the result when it is not, and the
// declaration of a tool that needs the package installed.
import {
  type AnyToolDefinition,
  failureResult,
  type ToolDefinition,
  ToolErrorCode,
  type ToolReturn,
} from '@toolsys/core-tool-registry';
import type { AndroidDevice } from '../../android-device.js';
import type { AndroidToolSession } from '../../android-session.js';
import { quoteShell } from '../../shell-quote.js';
import { type DeviceToolContext, defineDeviceTool } from '../device-tool.js';

/** Whether a package is installed (`pm path` prints `package:…` only for installed ones). */
export async function isInstalled(
  device: AndroidDevice,
  packageName: string,
  signal: AbortSignal,
): Promise<boolean> {
  const output = await device.shell(`pm path ${quoteShell(packageName)}`, { signal });
  return output.includes('package:');
}

/** The NOT_FOUND result for a package that is not on the device. */
export function notInstalled(packageName: string) {
  return failureResult(
    ToolErrorCode.NOT_FOUND,
    `Package ${packageName} is not installed on the device.`,
    {
      field: 'package',
      hint: 'Check the exact name with app_list (filter by part of the name), then retry.',
    },
  );
}

/**
 * Declares a device tool that acts on an installed app: when the `package` argument is not
 * installed the call ends with {@link notInstalled} before the handler runs.
 */
export function defineInstalledAppTool<
  TArgs extends { package: string; serial?: string | undefined },
>(
  session: AndroidToolSession,
  definition: Omit<ToolDefinition<TArgs>, 'execute'> & {
    execute(args: TArgs, context: DeviceToolContext): Promise<ToolReturn>;
  },
): AnyToolDefinition {
  return defineDeviceTool<TArgs>(session, {
    ...definition,
    async execute(args, context) {
      if (!(await isInstalled(context.device, args.package, context.signal))) {
        return notInstalled(args.package);
      }
      return definition.execute(args, context);
    },
  });
}
