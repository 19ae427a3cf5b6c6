// The memory tools: memory_search_nodes, memory_remember, memory_recent_episodes and
// memory_recall_macro.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { createRecallMacroTool } from './memory-recall-macro.js';
import { createRecentEpisodesTool } from './memory-recent-episodes.js';
import { createRememberTool } from './memory-remember.js';
import { createSearchNodesTool } from './memory-search-nodes.js';
import type { MemoryToolsOptions, OpenMemoryStore } from './shared.js';

export type { MemoryToolsOptions } from './shared.js';

/**
 * `memory_search_nodes`, `memory_remember`, `memory_recent_episodes` and `memory_recall_macro` over
 * one memory store.
 * Cheap: building the tools touches no database.
 */
export function createMemoryTools(options: MemoryToolsOptions): AnyToolDefinition[] {
  const now = options.now ?? Date.now;
  const { store: given } = options;
  const store: OpenMemoryStore = typeof given === 'function' ? given : () => given;
  return [
    createSearchNodesTool(store),
    createRememberTool(store),
    createRecentEpisodesTool(store, now),
    createRecallMacroTool(store),
  ];
}
