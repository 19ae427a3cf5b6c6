import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { AndroidToolSession } from '../../android-session.js';
import { createGetDeviceInfoTool } from './get-device-info.js';
import { createGetLocationTool } from './get-location.js';
import { createGetSetSettingsTool } from './get-set-settings.js';
import { createLogcatTool } from './logcat.js';
import { createNotificationReadTool } from './notification-read.js';

/** `get_device_info`, `get_set_settings`, `logcat`, `get_location` and `notification_read`. */
export function createSystemTools(session: AndroidToolSession): AnyToolDefinition[] {
  return [
    createGetDeviceInfoTool(session),
    createGetSetSettingsTool(session),
    createLogcatTool(session),
    createGetLocationTool(session),
    createNotificationReadTool(session),
  ];
}
