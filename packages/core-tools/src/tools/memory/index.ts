// The file-memory tools group: memorize, recall and forget over one folder of notes.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createForgetTool } from './forget.js';
import { createMemorizeTool } from './memorize.js';
import { NoteStores } from './note-store.js';
import { createRecallTool } from './recall.js';
import type { FileMemoryToolsOptions } from './shared.js';

export type { FileMemoryToolsOptions } from './shared.js';

/**
 * `memorize`, `recall` and `forget`: notes kept as Markdown files with front matter, one set per
 * caller (principal) unless `shared`.
 */
export function createFileMemoryTools(options: FileMemoryToolsOptions): AnyToolDefinition[] {
  const stores = new NoteStores(options);
  return [createMemorizeTool(stores), createRecallTool(stores), createForgetTool(stores)];
}
