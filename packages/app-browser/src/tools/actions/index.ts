import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { BrowserToolSettings } from '../browser-tool.js';
import { createClickTool } from './click.js';
import { createDateInputTool } from './date-input.js';
import { createFileUploadTool } from './file-upload.js';
import { createInputTool } from './input.js';
import { createScrollTool } from './scroll.js';
import { createSelectTool } from './select.js';
import { createToggleTool } from './toggle.js';

/** The action tools: click, input, scroll, select, toggle, date input and file upload. */
export function createActionTools(settings: BrowserToolSettings): AnyToolDefinition[] {
  return [
    createClickTool(settings),
    createInputTool(settings),
    createScrollTool(settings),
    createSelectTool(settings),
    createToggleTool(settings),
    createDateInputTool(settings),
    createFileUploadTool(settings),
  ];
}
