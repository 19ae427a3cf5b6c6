import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createTerminalBackendsTool } from './backends.js';
import { createTerminalCloseTool } from './close.js';
import { createTerminalCreateTool } from './create.js';
import { createTerminalResizeTool } from './resize.js';
import type { SessionToolsOptions } from './shared.js';
import { createTerminalSignalTool } from './signal.js';
import { createTerminalWorkspacesTool } from './workspaces.js';

/**
 * `terminal.create`, `terminal.close`, `terminal.workspaces`, `terminal.backends`,
 * `terminal.resize` and `terminal.signal`.
 */
export function createSessionTools(options: SessionToolsOptions): AnyToolDefinition[] {
  return [
    createTerminalCreateTool(options),
    createTerminalCloseTool(options.manager),
    createTerminalWorkspacesTool(options.manager),
    createTerminalBackendsTool(options),
    createTerminalResizeTool(options.manager),
    createTerminalSignalTool(options.manager),
  ];
}

export type { SessionToolsOptions } from './shared.js';
