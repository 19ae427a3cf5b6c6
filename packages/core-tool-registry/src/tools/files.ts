import type { AnyToolDefinition } from '../tool.js';

/** Options for {@link createFileTools}. */
export interface FileToolsOptions {
  /** Directory every path is confined to. */
  workspaceRoot: string;
}

/** The file tools, confined to the workspace root. */
export function createFileTools(_options: FileToolsOptions): AnyToolDefinition[] {
  return [];
}
