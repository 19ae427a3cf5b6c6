import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { BrowserToolSettings } from '../browser-tool.js';
import { createScreenshotTool } from './screenshot.js';
import { createSnapshotTool } from './snapshot.js';

/** `browser_snapshot` and `browser_screenshot`. */
export function createPageViewTools(settings: BrowserToolSettings): AnyToolDefinition[] {
  return [createSnapshotTool(settings), createScreenshotTool(settings)];
}
