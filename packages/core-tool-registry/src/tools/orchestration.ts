import type { AnyToolDefinition } from '../tool.js';
import type { ToolExecutor } from '../tool-executor.js';

/** Options for {@link createOrchestrationTools}. */
export interface OrchestrationToolsOptions {
  /** Executor that batch steps and shortcut steps run through (every step passes the same gates). */
  executor: ToolExecutor;
  /** Directory defined shortcuts are persisted in. */
  shortcutDirectory: string;
}

/** `wait`, `json_transform`, `version_compare`, `tool_batch_run` and the shortcut tools. */
export function createOrchestrationTools(_options: OrchestrationToolsOptions): AnyToolDefinition[] {
  return [];
}
