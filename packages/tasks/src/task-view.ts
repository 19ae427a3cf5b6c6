import {
  isTerminalTaskStatus,
  type TaskInputRequest,
  type TaskRecord,
  type TaskStatus,
  type ToolResult,
} from '@toolsys/core-tool-registry';

/**
 * A task as MCP Tasks shows it (both the 2025-11-25 methods and the 2026-07-28 extension): times
 * as ISO 8601, the time-to-live and poll interval in ms.
 */
export interface ProtocolTask {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly lastUpdatedAt: string;
  /** How long the task and its result are kept after creation, in ms. */
  readonly ttl: number;
  /** How often to poll, in ms. */
  readonly pollInterval: number;
}

/** What a caller may see of one of its tasks. */
export interface TaskView {
  /** The task as the protocol shows it. */
  readonly task: ProtocolTask;
  /** The tool called. */
  readonly toolId: string;
  /** The last progress the tool reported, if any. */
  readonly progress?: TaskRecord['progress'];
  /** The first question the task waits on, while `input_required`. */
  readonly inputRequest?: TaskInputRequest;
  /** Every question the task waits on, while `input_required`, in the order asked. */
  readonly inputRequests?: readonly TaskInputRequest[];
  /** The result, once the task has ended (a cancelled task's says so). */
  readonly result?: ToolResult;
}

/** The protocol's view of a stored task. */
export function toProtocolTask(record: TaskRecord): ProtocolTask {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}

/**
 * A task as the 2026-07-28 Tasks extension (`io.modelcontextprotocol/tasks`) names its fields:
 * `ttlMs` and `pollIntervalMs` instead of `ttl` and `pollInterval`.
 */
export interface ProtocolTaskV2 {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly lastUpdatedAt: string;
  /** How long the task and its result are kept after creation, in ms. */
  readonly ttlMs: number;
  /** How often to poll, in ms. */
  readonly pollIntervalMs: number;
}

/** The 2026-07-28 extension's view of a task (the same facts as {@link ProtocolTask}). */
export function toProtocolTaskV2(task: ProtocolTask): ProtocolTaskV2 {
  const { ttl, pollInterval, ...rest } = task;
  return { ...rest, ttlMs: ttl, pollIntervalMs: pollInterval };
}

/** What the owner may see of a stored task. */
export function toTaskView(record: TaskRecord): TaskView {
  return {
    task: toProtocolTask(record),
    toolId: record.toolId,
    ...(record.progress ? { progress: record.progress } : {}),
    ...(record.status === 'input_required' && record.inputRequests?.[0]
      ? { inputRequest: record.inputRequests[0], inputRequests: record.inputRequests }
      : {}),
    ...(isTerminalTaskStatus(record.status) && record.result ? { result: record.result } : {}),
  };
}
