// The messages between the CPU tool pool and its workers.
import type {
  AnyToolDefinition,
  ToolErrorCode,
  ToolErrorOptions,
  ToolReturn,
} from '@toolsys/core-tool-registry';

/** One tool call sent to a CPU pool worker. */
export interface CpuTask {
  /** URL of the module the worker builds the tool from (see {@link CpuToolSet.workerModule}). */
  readonly module: string;
  /** The tool to run (one of the tool set's `toolIds`, or an internal task of the module). */
  readonly toolId: string;
  /** Its validated arguments. */
  readonly args: Record<string, unknown>;
  /** The call's id, session and attempt, as the handler's context gives them. */
  readonly callId: string;
  readonly sessionId: string;
  readonly attempt: number;
}

/** What a worker sends back: the handler's return value, or what it threw. */
export type CpuTaskOutcome =
  | { readonly kind: 'returned'; readonly value: ToolReturn }
  | {
      readonly kind: 'tool-error';
      readonly code: ToolErrorCode;
      readonly message: string;
      readonly options: Omit<ToolErrorOptions, 'cause'>;
    }
  | { readonly kind: 'error'; readonly message: string };

/**
 * What the module named by {@link CpuToolSet.workerModule} exports: how a worker builds one tool
 * (or internal task) by id, with its default limits. Undefined for ids it does not run.
 */
export interface CpuWorkerModule {
  loadCpuTool(toolId: string): AnyToolDefinition | undefined;
}

/**
 * The tools a {@link CpuToolPool} runs: where its workers load them from, which ids go to the pool,
 * and which calls are cheap enough to stay on the calling thread.
 */
export interface CpuToolSet {
  /**
   * URL of a module exporting `loadCpuTool` ({@link CpuWorkerModule}), imported in each worker on
   * its first task. Built, a `.js` file; from the TypeScript sources, a `.ts` file (the worker then
   * registers the TypeScript loader itself).
   */
  readonly workerModule: string | URL;
  /** Ids of the tools {@link offloadCpuTools} sends to the pool. */
  readonly toolIds: readonly string[];
  /** Whether a call of one of `toolIds` is cheap enough to run on the calling thread. Default: never. */
  readonly runsInline?: (toolId: string, args: Record<string, unknown>) => boolean;
}
