import type { AnyToolDefinition } from '../tool.js';

/** Options for {@link createShellTools}. */
export interface ShellToolsOptions {
  /** Directory commands run in and are confined to. */
  workspaceRoot: string;
}

/** `shell_execute`. */
export function createShellTools(_options: ShellToolsOptions): AnyToolDefinition[] {
  return [];
}
