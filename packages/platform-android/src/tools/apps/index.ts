import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { AndroidToolSession } from '../../android-session.js';
import { createAppForceStopTool } from './force-stop.js';
import { createAppInfoTool } from './info.js';
import { createAppInstallTool } from './install.js';
import { createAppLaunchTool } from './launch.js';
import { createAppListTool } from './list.js';
import { createAppUninstallTool } from './uninstall.js';

/** `app_list`, `app_launch`, `app_install`, `app_uninstall`, `app_force_stop` and `app_info`. */
export function createAppTools(session: AndroidToolSession): AnyToolDefinition[] {
  return [
    createAppListTool(session),
    createAppLaunchTool(session),
    createAppInstallTool(session),
    createAppUninstallTool(session),
    createAppForceStopTool(session),
    createAppInfoTool(session),
  ];
}
