import type { ToolRegistry } from '../registry/tool-registry.js';
import type {
  CallPrincipal,
  ConfirmFunction,
  InputRequest,
  InputResponse,
  RegisteredTool,
  ToolContext,
  ToolEvent,
} from './tool.js';
import type { ToolResult } from './tool-result.js';

/** Per-call options of {@link ToolExecutor.execute}. */
export interface ExecuteOptions {
  /** The agent session; permission decisions are remembered per session. Default `default`. */
  sessionId?: string;
  /**
   * Who is calling (see {@link CallPrincipal}); reaches the handler as `context.principal` and the
   * call's trace spans as `principal`. Absent: none is known.
   */
  principal?: CallPrincipal;
  /** A call id chosen by the caller; generated when absent. */
  callId?: string;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Receives progress and streamed output while the tool runs. */
  onEvent?: (event: ToolEvent) => void;
  /** Overrides the executor's confirm function for this call (e.g. MCP elicitation). */
  confirm?: ConfirmFunction;
  /** Reaches the handler as `context.requestInput`: how this call's client answers input requests. */
  requestInput?: (request: InputRequest) => Promise<InputResponse>;
}

/** Runs tool calls. `execute` never throws: every outcome is a {@link ToolResult}. */
export interface ToolExecutor {
  readonly registry: ToolRegistry;
  execute(id: string, rawArgs: unknown, options?: ExecuteOptions): Promise<ToolResult>;
}

export type { RegisteredTool, ToolContext };
