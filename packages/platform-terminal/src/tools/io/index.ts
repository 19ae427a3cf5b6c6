import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { TerminalManager } from '../../terminal-manager.js';
import { createTerminalObserveTool } from './observe.js';
import { createTerminalRunTool } from './run.js';
import { createTerminalSnapshotTool } from './snapshot.js';
import { createTerminalWaitTool } from './wait.js';
import { createTerminalWriteTool } from './write.js';

/** Options for {@link createIoTools}. */
export interface IoToolsOptions {
  /** The sessions the tools act on. */
  readonly manager: TerminalManager;
  /** Quiet time after keystrokes before terminal.write returns the screen. Default 300 ms. */
  readonly settleMs?: number;
}

/** `terminal.run`, `terminal.write`, `terminal.observe`, `terminal.snapshot` and `terminal.wait`. */
export function createIoTools(options: IoToolsOptions): AnyToolDefinition[] {
  const settleMs = options.settleMs ?? 300;
  return [
    createTerminalRunTool(options.manager),
    createTerminalWriteTool(options.manager, settleMs),
    createTerminalObserveTool(options.manager),
    createTerminalSnapshotTool(options.manager),
    createTerminalWaitTool(options.manager),
  ];
}
