import type { ToolErrorCode, ToolErrorOptions, ToolReturn } from '@toolsys/core-tool-registry';

/** One tool call sent to a CPU pool worker. */
export interface CpuTask {
  /** The tool to run (one of `CPU_TOOL_IDS`). */
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
