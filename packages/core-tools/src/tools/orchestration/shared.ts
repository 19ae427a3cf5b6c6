// Options shared by the orchestration tools.
import type { ToolClock, ToolExecutor, ToolTraceRecorder } from '@toolsys/core-tool-registry';

/** Options for {@link createOrchestrationTools}. */
export interface OrchestrationToolsOptions {
  /** Executor that batch steps and shortcut steps run through (every step passes the same gates). */
  executor: ToolExecutor;
  /** Directory defined shortcuts are persisted in. */
  shortcutDirectory: string;
  /** Trace recorder the shortcut suggester mines; default: the executor's, when it has one. */
  traces?: ToolTraceRecorder;
  /** Clock for `wait` and batch budgets. Default: the system clock. */
  clock?: ToolClock;
}
