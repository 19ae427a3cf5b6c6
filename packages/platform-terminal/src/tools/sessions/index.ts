import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createTerminalBackendsTool } from './backends.js';
import { createTerminalCloseTool } from './close.js';
import { createTerminalCreateTool } from './create.js';
import { createTerminalResizeTool } from './resize.js';
import type { SessionToolsOptions } from './shared.js';
import { createTerminalSignalTool } from './signal.js';
import { createTerminalWorkspacesTool } from './workspaces.js';

/**
 * `terminal.create`, `terminal.resize`, `terminal.signal`, `terminal.close`, `terminal.workspaces`
 * and `terminal.backends`, in the order of the spec.
 */
export function createSessionTools(options: SessionToolsOptions): AnyToolDefinition[] {
  return [
    createTerminalCreateTool(options),
    createTerminalResizeTool(options.manager),
    createTerminalSignalTool(options.manager),
    createTerminalCloseTool(options.manager),
    createTerminalWorkspacesTool(options.manager),
    createTerminalBackendsTool(options),
  ];
}

export type { SessionToolsOptions } from './shared.js';
