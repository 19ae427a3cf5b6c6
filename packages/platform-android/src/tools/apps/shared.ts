// What the app tools share: whether a package is installed, and the result when it is not.
import { failureResult, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { AndroidDevice } from '../../android-device.js';
import { quoteShell } from '../../shell-quote.js';

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
