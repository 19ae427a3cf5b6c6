import type { AnyToolDefinition } from '../tool.js';

/** Options for {@link createStructuredTools}. */
export interface StructuredToolsOptions {
  /** Directory `file_hash` reads are confined to. */
  workspaceRoot: string;
}

/** The fifteen offline structured tools. */
export function createStructuredTools(_options: StructuredToolsOptions): AnyToolDefinition[] {
  return [];
}
