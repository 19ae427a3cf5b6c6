import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { BrowserToolSettings } from '../browser-tool.js';
import { createNavigateTool } from './navigate.js';
import { createShowTool } from './show.js';

/** `browser_navigate` and `browser_show`. */
export function createNavigationTools(settings: BrowserToolSettings): AnyToolDefinition[] {
  return [createNavigateTool(settings), createShowTool(settings)];
}
