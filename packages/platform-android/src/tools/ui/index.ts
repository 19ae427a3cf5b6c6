import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { AndroidToolSession } from '../../android-session.js';
import { createUiDumpTool } from './dump.js';
import { createInputTextTool } from './input-text.js';
import { createScreenshotTool } from './screenshot.js';
import { createUiSwipeTool } from './swipe.js';
import { createUiTapTool } from './tap.js';

/** `ui_dump`, `ui_tap`, `ui_swipe`, `input_text` and `screenshot`. */
export function createUiTools(session: AndroidToolSession): AnyToolDefinition[] {
  return [
    createUiDumpTool(session),
    createUiTapTool(session),
    createUiSwipeTool(session),
    createInputTextTool(session),
    createScreenshotTool(session),
  ];
}

export { ADB_KEYBOARD_IME } from './input-text.js';
