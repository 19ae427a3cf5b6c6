import type {
  AnyToolDefinition,
  ToolEnvironmentState,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { AndroidDeviceManager, type AndroidDeviceManagerOptions } from './android-device.js';
import { AndroidToolSession } from './android-session.js';
import { createAppTools } from './tools/apps/index.js';
import { createMediaTools } from './tools/media/index.js';
import { createSystemTools } from './tools/system/index.js';
import { createUiTools } from './tools/ui/index.js';
import { createUiBackendChoice, type UiBackendOptions } from './ui-backend-choice.js';

/** Options for {@link createAndroidTools}. */
export interface AndroidToolsOptions
  extends AndroidDeviceManagerOptions,
    Omit<UiBackendOptions, 'adbPath' | 'adbServerPort' | 'adbServerHost'> {
  /** Workspace root; app_install reads APKs only from inside it (absolute). */
  workspaceRoot: string;
  /** Data dir; screenshots go to `<dataDir>/android/` (absolute). */
  dataDir: string;
  /** The executor's environment state: device telemetry is recorded there for the environment gate. */
  environment?: ToolEnvironmentState;
  /** Pause after a tap, swipe or typing before the screen is read again, in ms. Default 400. */
  settleMs?: number;
  /**
   * The registry the tools are served from: while the device they use without `serial` is gone,
   * they are listed there as off (`registry.off`), so `tool_search` says so. Default: none.
   */
  registry?: ToolRegistry;
}

/** The tools and the session they share. */
export interface AndroidTools {
  /** The 18 device tools, in catalog order. */
  readonly tools: AnyToolDefinition[];
  /** Device selection, telemetry and UI snapshots shared by the tools. */
  readonly session: AndroidToolSession;
  /** Deletes Appium sessions and stops a local Appium server, if the UI backend started them. */
  dispose(): Promise<void>;
  /** Forgets what one client session kept (its UI snapshots and cut ui_dump pages). */
  endSession(sessionId: string): void;
}

/**
 * The 18 Android tools over adb: app_list app_launch app_install app_uninstall app_force_stop
 * app_info get_device_info get_set_settings control_media clipboard logcat ui_tap ui_swipe ui_dump
 * screenshot input_text get_location notification_read. Building them contacts no device and
 * starts nothing; the UI tools go through adb or Appium as `ui` says.
 */
export function createAndroidTools(options: AndroidToolsOptions): AndroidTools {
  const manager = new AndroidDeviceManager(options);
  const session = new AndroidToolSession({
    manager,
    workspaceRoot: options.workspaceRoot,
    dataDir: options.dataDir,
    ...(options.environment ? { environment: options.environment } : {}),
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
    ...(options.registry ? { off: options.registry.off } : {}),
    ui: createUiBackendChoice({
      ...options,
      ...(options.adbPath === undefined ? {} : { adbPath: options.adbPath }),
      ...(options.adbServerPort === undefined ? {} : { adbServerPort: options.adbServerPort }),
      ...(options.adbServerHost === undefined ? {} : { adbServerHost: options.adbServerHost }),
    }),
  });
  const tools = [
    ...createAppTools(session),
    ...createSystemTools(session),
    ...createMediaTools(session),
    ...createUiTools(session),
  ];
  session.away.track(tools);
  return {
    tools,
    session,
    dispose: () => session.ui.dispose(),
    endSession: (sessionId) => session.endSession(sessionId),
  };
}
