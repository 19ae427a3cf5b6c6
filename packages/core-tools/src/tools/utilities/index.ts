// Builds the utility tools group.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createCalculateTool } from './calculate.js';
import { createGetTimeTool } from './get-time.js';
import { createTextTransformTool } from './text-transform.js';

/** `calculate`, `get_time` and `text_transform`. */
export function createUtilityTools(): AnyToolDefinition[] {
  return [createCalculateTool(), createGetTimeTool(), createTextTransformTool()];
}
