import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolEnvironmentState, ToolRegistry } from '@toolsys/core-tool-registry';
import { createAndroidTools } from '@toolsys/platform-android';

// Building the tools contacts no device: adb runs on the first call (see below for calls).
const workspaceRoot = mkdtempSync(join(tmpdir(), 'android-example-'));
try {
  const environment = new ToolEnvironmentState();
  const { tools } = createAndroidTools({ workspaceRoot, dataDir: workspaceRoot, environment });
  const registry = new ToolRegistry();
  registry.registerAll(tools);
  console.log(`${registry.ids().length} tools: ${registry.ids().sort().join(', ')}`);
} finally {
  rmSync(workspaceRoot, { recursive: true, force: true });
}

// Prints:
// 18 tools: app_force_stop, app_info, app_install, app_launch, app_list, app_uninstall, clipboard, control_media, get_device_info, get_location, get_set_settings, input_text, logcat, notification_read, screenshot, ui_dump, ui_swipe, ui_tap
