import type { InputRequest, InputResponse, ToolEvent } from './tool.js';
import type { ToolResult } from './tool-result.js';

/** The states of a task, as MCP Tasks names them; the last three are terminal. */
export const TASK_STATUSES = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
] as const;

/** One of {@link TASK_STATUSES}. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Whether a task in this status has ended (nothing changes it any more). */
export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A question a running task waits on: what the tool asked its client, with the id to answer it by. */
export interface TaskInputRequest {
  /** Unguessable id of this question; an answer names it. */
  readonly requestId: string;
  /** What the tool asked (an elicitation, a sampling request, the roots). */
  readonly request: InputRequest;
}

/** An answer to one of a task's questions. */
export interface TaskInputResponse {
  /** The {@link TaskInputRequest.requestId} it answers. */
  readonly requestId: string;
  readonly response: InputResponse;
}

/** A task as stored: one tool call that runs detached from the request that started it. */
export interface TaskRecord {
  /** Unguessable id (at least 128 random bits), the only handle a client gets. */
  readonly taskId: string;
  /** The `principalKey` of the principal that created it: only it may see or touch the task. */
  readonly owner: string;
  /** The tool called. */
  readonly toolId: string;
  readonly status: TaskStatus;
  /** A sentence on the current state, for people and models (the last progress, why it failed). */
  readonly statusMessage?: string;
  /** When it was created, ms since the epoch. */
  readonly createdAt: number;
  /** When anything about it last changed, ms since the epoch. */
  readonly lastUpdatedAt: number;
  /** How long the record (and its result) is kept after creation, in ms; never purged while running. */
  readonly ttlMs: number;
  /** How often a client should poll it, in ms. */
  readonly pollIntervalMs: number;
  /** The replica (process) that runs it: when that replica is gone, a running task has failed. */
  readonly replicaId: string;
  /**
   * The random mark the task's processes carry in their environment: what is left of them when
   * their replica died is found and ended by it. Not the task id (its processes can read it).
   */
  readonly processMark?: string;
  /** The last progress the tool reported. */
  readonly progress?: Extract<ToolEvent, { type: 'progress' }>;
  /**
   * The questions the task waits on, while `input_required`, in the order they were asked (a
   * tool that asks several at once, `Promise.all`, waits on all of them).
   */
  readonly inputRequests?: readonly TaskInputRequest[];
  /** Answers given to {@link inputRequests} on any replica, until the running replica takes them. */
  readonly inputResponses?: readonly TaskInputResponse[];
  /** Set once someone asked to cancel: the running replica stops the work. */
  readonly cancelRequested?: true;
  /** The call's result (bounded), once terminal. */
  readonly result?: ToolResult;
}

/** What may change in a stored task. */
export type TaskPatch = Partial<
  Pick<
    TaskRecord,
    | 'status'
    | 'statusMessage'
    | 'progress'
    | 'inputRequests'
    | 'inputResponses'
    | 'cancelRequested'
    | 'result'
  >
> & {
  /** Fields to remove (`inputRequests` once answered, `inputResponses` once taken). */
  readonly clear?: readonly ('inputRequests' | 'inputResponses' | 'statusMessage' | 'progress')[];
};

/** One page of a principal's tasks, newest first. */
export interface TaskPage {
  readonly tasks: readonly TaskRecord[];
  /** Opaque cursor of the next page; absent on the last one. */
  readonly nextCursor?: string;
}

/** A message to the replica running a task: cancel it, or an answer to its question arrived. */
export type TaskSignal =
  | { readonly kind: 'cancel'; readonly taskId: string }
  | { readonly kind: 'input'; readonly taskId: string };

/**
 * Where tasks live: embedded SQLite on one host, Redis across replicas. Every method is bounded
 * in time; a store that cannot answer rejects (the caller reports it), it never hangs.
 */
export interface TaskStore {
  /** The id of this replica (process): written into the tasks it runs. */
  readonly replicaId: string;
  /** Stores a new task. */
  create(record: TaskRecord): Promise<void>;
  /** A task by id (undefined when unknown or expired); ownership is the caller's check. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Changes a task that has not ended (a terminal task never changes: a late result after a
   * cancel is dropped) and stamps `lastUpdatedAt`. Returns the task after the change, or the
   * unchanged task when it had already ended, or undefined when unknown.
   */
  update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /** The owner's tasks, newest first, `limit` per page. */
  list(owner: string, options: { cursor?: string; limit: number }): Promise<TaskPage>;
  /** Tells the replica running the task (wherever it is) that it was cancelled or answered. */
  signal(message: TaskSignal, replicaId: string): Promise<void>;
  /** Receives the signals for tasks this replica runs. Returns the unsubscribe function. */
  onSignal(listener: (message: TaskSignal) => void): () => void;
  /** Whether the replica that runs a task is still alive (this replica always is). */
  isReplicaAlive(replicaId: string): Promise<boolean>;
  /** Stops background work; the records stay. */
  close(): Promise<void>;
}

/**
 * `record` with `patch` applied and `lastUpdatedAt` set to `now`: the one merge every store uses,
 * so that each store only has to make it atomic.
 */
export function applyTaskPatch(record: TaskRecord, patch: TaskPatch, now: number): TaskRecord {
  const { clear, ...fields } = patch;
  const next: Record<string, unknown> = { ...record, ...fields, lastUpdatedAt: now };
  for (const field of clear ?? []) delete next[field];
  for (const [key, value] of Object.entries(next)) if (value === undefined) delete next[key];
  return next as unknown as TaskRecord;
}

/** Whether a stored value has the shape of a {@link TaskRecord} (a store reads nothing else). */
export function isTaskRecord(value: unknown): value is TaskRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.taskId === 'string' &&
    typeof record.owner === 'string' &&
    typeof record.toolId === 'string' &&
    typeof record.status === 'string' &&
    typeof record.createdAt === 'number' &&
    typeof record.lastUpdatedAt === 'number' &&
    typeof record.ttlMs === 'number' &&
    typeof record.pollIntervalMs === 'number' &&
    typeof record.replicaId === 'string'
  );
}

/** Parses a stored record; undefined for anything that is not one. */
export function parseTaskRecord(text: string | null | undefined): TaskRecord | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isTaskRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
