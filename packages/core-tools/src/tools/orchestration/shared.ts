// Options and metadata shared by the orchestration tools.
import {
  type ToolClock,
  type ToolExecutor,
  ToolHints,
  type ToolMetadataInput,
  type ToolTraceRecorder,
} from '@toolsys/core-tool-registry';

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

/**
 * The metadata of a tool that runs other tools by id (a batch, a shortcut): LOW risk itself, as
 * every step passes the gates on its own; `orchestrates` says so to the gates.
 */
export const RUNS_OTHER_TOOLS_METADATA: ToolMetadataInput = Object.freeze({
  category: 'orchestration',
  risk: 'LOW',
  annotations: ToolHints.mutating,
  orchestrates: true,
});
