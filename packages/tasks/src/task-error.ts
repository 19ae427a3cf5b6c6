/**
 * Why a task operation was refused. Every code but `STORE_UNAVAILABLE` is the caller's to fix;
 * a server maps them all to the protocol's invalid-params error (-32602), except
 * `STORE_UNAVAILABLE`, an internal error.
 */
export const TaskErrorCode = {
  /** No task with this id belongs to the caller (unknown, expired, or another principal's). */
  NOT_FOUND: 'NOT_FOUND',
  /** The tool does not exist for the caller. */
  TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
  /** The tool's `taskSupport` is `forbidden`: call it as a plain request. */
  TASK_NOT_SUPPORTED: 'TASK_NOT_SUPPORTED',
  /** The task has already ended (completed, failed or cancelled): it cannot be cancelled. */
  ALREADY_TERMINAL: 'ALREADY_TERMINAL',
  /** The task waits on no question with this id (answered already, or never asked). */
  NO_PENDING_INPUT: 'NO_PENDING_INPUT',
  /** The caller runs as many tasks as it may at once. */
  TOO_MANY_TASKS: 'TOO_MANY_TASKS',
  /** A cursor that this service did not hand out. */
  INVALID_CURSOR: 'INVALID_CURSOR',
  /** The task store did not answer (Redis down, the disk failing). */
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
} as const;

/** One of {@link TaskErrorCode}. */
export type TaskErrorCode = (typeof TaskErrorCode)[keyof typeof TaskErrorCode];

/** A refused task operation: a closed code and a message that names the next step. */
export class TaskError extends Error {
  readonly code: TaskErrorCode;

  constructor(code: TaskErrorCode, message: string) {
    super(message);
    this.name = 'TaskError';
    this.code = code;
  }
}

/** Whether `value` is a {@link TaskError}. */
export function isTaskError(value: unknown): value is TaskError {
  return value instanceof TaskError;
}

/** The answer for a task the caller may not see: the same as for one that never existed. */
export function taskNotFound(taskId: string): TaskError {
  const shown = taskId.length > 64 ? `${taskId.slice(0, 64)}…` : taskId;
  return new TaskError(
    TaskErrorCode.NOT_FOUND,
    `no task "${shown}": it does not exist, has expired, or belongs to someone else. List your tasks with tasks/list.`,
  );
}

/**
 * A store's failure as a {@link TaskError}: a TaskError as it is, an error carrying a known code
 * (`INVALID_CURSOR`) with it, anything else as STORE_UNAVAILABLE.
 */
export function asTaskError(error: unknown): TaskError {
  if (error instanceof TaskError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === TaskErrorCode.INVALID_CURSOR) {
    return new TaskError(
      TaskErrorCode.INVALID_CURSOR,
      'cursor: not a cursor tasks/list returned; call tasks/list without a cursor to start again.',
    );
  }
  return new TaskError(
    TaskErrorCode.STORE_UNAVAILABLE,
    'the task store did not answer; try again shortly.',
  );
}

/** JSON-RPC invalid params: every refusal that is the caller's to fix. */
const INVALID_PARAMS = -32602;
/** JSON-RPC internal error. */
const INTERNAL_ERROR = -32603;

/** The JSON-RPC error code a server answers a {@link TaskError} with (both MCP eras). */
export function jsonRpcCodeOf(error: TaskError): number {
  return error.code === TaskErrorCode.STORE_UNAVAILABLE ? INTERNAL_ERROR : INVALID_PARAMS;
}
