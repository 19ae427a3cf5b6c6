import type { AnyToolDefinition } from '../tool.js';

/** Options for {@link createFileMemoryTools}. */
export interface FileMemoryToolsOptions {
  /** Directory the notes are kept in. */
  directory: string;
}

/** `memorize`, `recall` and `forget`. */
export function createFileMemoryTools(_options: FileMemoryToolsOptions): AnyToolDefinition[] {
  return [];
}
