import { randomBytes } from 'node:crypto';
import {
  type CallPrincipal,
  type ConfirmFunction,
  failureResult,
  type InputRequest,
  type InputResponse,
  isTerminalTaskStatus,
  principalKey,
  type TaskPatch,
  type TaskRecord,
  type TaskSignal,
  type TaskStatus,
  type TaskStore,
  ToolErrorCode,
  type ToolExecutor,
  type ToolResult,
  type ToolTaskSupport,
  taskSupportOf,
} from '@toolsys/core-tool-registry';
import { runWithTaskMark, signalMarkedProcesses, TASK_MARK_VARIABLE } from '@toolsys/platform';
import { boundResult, MAX_TASK_RESULT_BYTES } from './bounded-result.js';
import { confirmThroughInput } from './confirm-through-input.js';
import { LocalRun } from './local-run.js';
import { ProgressWriter } from './progress-writer.js';
import { asTaskError, TaskError, TaskErrorCode, taskNotFound } from './task-error.js';
import { isWellFormedTaskId, newRequestId, newTaskId } from './task-ids.js';
import { type ProtocolTask, type TaskView, toProtocolTask, toTaskView } from './task-view.js';

/** Options for {@link TaskService}. */
export interface TaskServiceOptions {
  /** Runs every task's call (the deployment's executor, with its whole pipeline). */
  executor: ToolExecutor;
  /** Where tasks live: `SqliteTaskStore` on one host, `RedisTaskStore` across replicas. */
  store: TaskStore;
  /** Time-to-live of a task whose creator asked for none, in ms. Default 1 hour. */
  defaultTtlMs?: number;
  /** The longest time-to-live a creator may ask for, in ms. Default 24 hours. */
  maxTtlMs?: number;
  /** The poll interval suggested to clients, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** The most bytes of one stored result (UTF-8 JSON). Default {@link MAX_TASK_RESULT_BYTES}. */
  maxResultBytes?: number;
  /** Tasks one principal may run at once on this replica. Default 32. */
  maxActivePerPrincipal?: number;
  /** Time between SIGTERM and SIGKILL for a cancelled task's processes, in ms. Default 500. */
  killGraceMs?: number;
  /**
   * How often this replica re-reads the tasks it runs for a cancel or an answer whose signal was
   * lost, in ms. Default 500.
   */
  controlPollMs?: number;
  /** Wall clock, ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Per-call options of {@link TaskService.create}. */
export interface CreateTaskOptions {
  /** Who creates the task: only this principal may see, read, answer or cancel it. */
  principal?: CallPrincipal;
  /** The client session (permission answers are remembered per session). Default `default`. */
  sessionId?: string;
  /** The time-to-live the client asked for, in ms; bounded by the service's `maxTtlMs`. */
  ttlMs?: number;
  /**
   * Answers the risk gate's and the tool's confirmations. Default: each becomes an input request
   * of the task (an elicitation with a `decision` field), so the task waits in `input_required`.
   */
  confirm?: ConfirmFunction;
  /**
   * Answers given before the task started, by the `key` the tool asks them under (its
   * `questionsBeforeTask`): the tool's first request with such a key gets the answer at once.
   */
  answers?: Readonly<Record<string, InputResponse>>;
}

/** A task's status change, for status notifications. */
export interface TaskStatusEvent {
  /** The `principalKey` of the task's owner: send the notification to this principal only. */
  readonly owner: string;
  readonly task: ProtocolTask;
}

const ONE_HOUR_MS = 3_600_000;
const MIN_TTL_MS = 1_000;

/**
 * Long tool calls as tasks (MCP Tasks): a call runs detached from the request that started it,
 * through the executor with an abort signal; its progress, questions and bounded result are kept
 * in the store for its time-to-live; only its creator sees it. Cancelling stops the call and ends
 * every process it started. Transport-independent: a server maps its protocol methods onto
 * `create`, `get`, `result`, `list`, `cancel` and `answerInput`.
 */
export class TaskService {
  readonly #executor: ToolExecutor;
  readonly #store: TaskStore;
  readonly #defaultTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #pollIntervalMs: number;
  readonly #maxResultBytes: number;
  readonly #maxActive: number;
  readonly #killGraceMs: number;
  readonly #now: () => number;
  readonly #runs = new Map<string, LocalRun>();
  readonly #listeners = new Set<(event: TaskStatusEvent) => void>();
  readonly #changed = new Set<() => void>();
  readonly #unsubscribe: () => void;
  readonly #control: ReturnType<typeof setInterval>;
  #closed = false;

  constructor(options: TaskServiceOptions) {
    this.#executor = options.executor;
    this.#store = options.store;
    this.#defaultTtlMs = options.defaultTtlMs ?? ONE_HOUR_MS;
    this.#maxTtlMs = Math.max(MIN_TTL_MS, options.maxTtlMs ?? 24 * ONE_HOUR_MS);
    this.#pollIntervalMs = Math.max(100, options.pollIntervalMs ?? 1000);
    this.#maxResultBytes = options.maxResultBytes ?? MAX_TASK_RESULT_BYTES;
    this.#maxActive = options.maxActivePerPrincipal ?? 32;
    this.#killGraceMs = Math.max(0, options.killGraceMs ?? 500);
    this.#now = options.now ?? Date.now;
    this.#unsubscribe = this.#store.onSignal((message) => void this.#onSignal(message));
    this.#control = setInterval(() => void this.#pollRuns(), options.controlPollMs ?? 500);
    this.#control.unref?.();
  }

  /** This replica's id, as written into the tasks it runs. */
  get replicaId(): string {
    return this.#store.replicaId;
  }

  /**
   * How a tool may run as far as `principal` is concerned: its declared task support, or
   * undefined when no such tool exists for the caller. A server lists it as
   * `execution.taskSupport` and refuses a plain call of a `required` tool.
   */
  taskSupport(toolId: string, principal?: CallPrincipal): ToolTaskSupport | undefined {
    const tool = this.#executor.registry.get(toolId, principal);
    return tool === undefined ? undefined : taskSupportOf(tool);
  }

  /**
   * Creates a task for a call of `toolId` and starts it, detached from the caller; resolves once
   * the task is stored (status `working`). Refuses a tool that forbids tasks.
   */
  async create(
    toolId: string,
    rawArgs: unknown,
    options: CreateTaskOptions = {},
  ): Promise<ProtocolTask> {
    this.#assertOpen();
    const support = this.taskSupport(toolId, options.principal);
    if (support === undefined) {
      throw new TaskError(
        TaskErrorCode.TOOL_NOT_FOUND,
        `no tool "${toolId.slice(0, 100)}" here; list the tools to see which exist.`,
      );
    }
    if (support === 'forbidden') {
      throw new TaskError(
        TaskErrorCode.TASK_NOT_SUPPORTED,
        `${toolId} does not run as a task; call it without the task parameter.`,
      );
    }
    const owner = principalKey(options.principal);
    const active = [...this.#runs.values()].filter((run) => run.owner === owner && !run.isStopped);
    if (active.length >= this.#maxActive) {
      throw new TaskError(
        TaskErrorCode.TOO_MANY_TASKS,
        `you already run ${active.length} tasks here, the most at once; wait for one to end or cancel one (tasks/cancel), then try again.`,
      );
    }
    const now = this.#now();
    const requested = options.ttlMs;
    const ttlMs =
      requested === undefined || !Number.isFinite(requested)
        ? this.#defaultTtlMs
        : Math.min(this.#maxTtlMs, Math.max(MIN_TTL_MS, Math.floor(requested)));
    const record: TaskRecord = {
      taskId: newTaskId(),
      owner,
      toolId,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      replicaId: this.#store.replicaId,
      processMark: randomBytes(12).toString('hex'),
    };
    await this.#store.create(record).catch((error: unknown) => {
      throw asTaskError(error);
    });
    this.#start(record, rawArgs, options);
    this.#emit(record);
    return toProtocolTask(record);
  }

  /** The caller's task by id; NOT_FOUND for an unknown, expired or another principal's task. */
  async get(taskId: string, principal?: CallPrincipal): Promise<TaskView> {
    return toTaskView(await this.#owned(taskId, principal));
  }

  /**
   * The task's result, waiting until it has ended (as `tasks/result` does): the tool's result, or
   * for a cancelled task a failure saying so. Stops waiting when `signal` fires (rejects with its
   * reason). NOT_FOUND as {@link get}.
   */
  async result(
    taskId: string,
    principal?: CallPrincipal,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ task: ProtocolTask; result: ToolResult }> {
    for (;;) {
      const record = await this.#owned(taskId, principal);
      if (isTerminalTaskStatus(record.status)) {
        return { task: toProtocolTask(record), result: record.result ?? missingResult(record) };
      }
      await this.#changeOrTimeout(record.pollIntervalMs, options.signal);
    }
  }

  /** The caller's tasks, newest first (its own only), a page of `limit` (default 50, at most 100). */
  async list(
    principal?: CallPrincipal,
    options: { cursor?: string; limit?: number } = {},
  ): Promise<{ tasks: ProtocolTask[]; nextCursor?: string }> {
    let tasks: TaskRecord[];
    let page: Awaited<ReturnType<TaskStore['list']>>;
    try {
      page = await this.#store.list(principalKey(principal), {
        ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
        limit: options.limit ?? 50,
      });
      tasks = await Promise.all(page.tasks.map((record) => this.#reconcile(record)));
    } catch (error) {
      throw asTaskError(error);
    }
    return {
      tasks: tasks.map(toProtocolTask),
      ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    };
  }

  /**
   * Cancels the caller's running task: its status becomes `cancelled` at once, and the replica
   * that runs it (this one or another) stops the call and ends its processes. ALREADY_TERMINAL
   * for a task that has ended; NOT_FOUND as {@link get}.
   */
  async cancel(taskId: string, principal?: CallPrincipal): Promise<ProtocolTask> {
    const record = await this.#owned(taskId, principal);
    if (isTerminalTaskStatus(record.status)) {
      throw new TaskError(
        TaskErrorCode.ALREADY_TERMINAL,
        `task ${taskId} has already ended (${record.status}); there is nothing to cancel. Read its result with tasks/result.`,
      );
    }
    const updated = await this.#finish(taskId, 'cancelled', cancelledResult(record), {
      cancelRequested: true,
      statusMessage:
        'Cancelled by the client: the call was stopped and the processes it started were ended.',
    });
    const run = this.#runs.get(taskId);
    if (run) this.#stopRun(run);
    else await this.#store.signal({ kind: 'cancel', taskId }, record.replicaId);
    if (updated && updated.status !== 'cancelled') {
      // It ended on its own meanwhile.
      throw new TaskError(
        TaskErrorCode.ALREADY_TERMINAL,
        `task ${taskId} ended (${updated.status}) before the cancel arrived. Read its result with tasks/result.`,
      );
    }
    return toProtocolTask(updated ?? record);
  }

  /**
   * Answers the question the caller's task waits on (a `requestId` of {@link get}'s
   * `inputRequests`); the task goes on where it runs. NO_PENDING_INPUT when it waits on no such
   * question.
   */
  async answerInput(
    taskId: string,
    requestId: string,
    response: InputResponse,
    principal?: CallPrincipal,
  ): Promise<ProtocolTask> {
    const { task, ignored } = await this.answerInputs(taskId, { [requestId]: response }, principal);
    if (ignored.length > 0) {
      throw new TaskError(
        TaskErrorCode.NO_PENDING_INPUT,
        `task ${taskId} waits on no question "${requestId.slice(0, 64)}" (status ${task.status}); read it with tasks/get for the questions it waits on.`,
      );
    }
    return task;
  }

  /**
   * Answers some or all of the questions the caller's task waits on, by `requestId`; the task
   * stays `input_required` until every question has its answer. Answers to questions it does
   * not wait on (answered already, never asked, or the task has ended) are ignored and named in
   * `ignored`, as the Tasks extension's `tasks/update` has it. NOT_FOUND as {@link get}.
   */
  async answerInputs(
    taskId: string,
    responses: Readonly<Record<string, InputResponse>>,
    principal?: CallPrincipal,
  ): Promise<{ task: ProtocolTask; ignored: string[] }> {
    const record = await this.#owned(taskId, principal);
    const waitingOn = new Set(
      record.status === 'input_required'
        ? (record.inputRequests ?? []).map((question) => question.requestId)
        : [],
    );
    const ids = Object.keys(responses).filter((id) => waitingOn.has(id));
    const ignored = Object.keys(responses).filter((id) => !waitingOn.has(id));
    const task = toProtocolTask(record);
    if (ids.length === 0) return { task, ignored };
    const run = this.#runs.get(taskId);
    if (run !== undefined) {
      for (const id of ids) run.answer(id, responses[id] as InputResponse);
      return { task, ignored };
    }
    const given = ids.map((requestId) => ({
      requestId,
      response: responses[requestId] as InputResponse,
    }));
    const updated = await this.#store.update(taskId, {
      inputResponses: [...(record.inputResponses ?? []), ...given],
    });
    await this.#store.signal({ kind: 'input', taskId }, record.replicaId);
    return { task: updated ? toProtocolTask(updated) : task, ignored };
  }

  /** Listens to status changes of the tasks this replica runs or changes. Returns the unsubscribe. */
  onStatus(listener: (event: TaskStatusEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Stops every task this replica runs (each is reported failed: the host is stopping) and the
   * background work; the store stays open (its owner closes it).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#control);
    this.#unsubscribe();
    const runs = [...this.#runs.values()];
    await Promise.all(
      runs.map(async (run) => {
        await this.#finish(run.taskId, 'failed', undefined, {
          statusMessage:
            'The host stopped while the task ran, so the call was stopped; run it again.',
        }).catch(() => undefined);
        await this.#stopRun(run);
      }),
    );
    for (const wake of [...this.#changed]) wake();
  }

  #start(record: TaskRecord, rawArgs: unknown, options: CreateTaskOptions): void {
    const taskId = record.taskId;
    let resolveSettled: () => void = () => {};
    const settled = new Promise<void>((resolve) => {
      resolveSettled = resolve;
    });
    const run = new LocalRun(
      taskId,
      record.processMark ?? randomBytes(12).toString('hex'),
      settled,
      record.owner,
    );
    this.#runs.set(taskId, run);
    const signal = run.controller.signal;
    const progress = new ProgressWriter((patch) => this.#write(taskId, patch));
    const given = new Map(Object.entries(options.answers ?? {}));
    const requestInput = (request: InputRequest): Promise<InputResponse> => {
      const answer = request.key === undefined ? undefined : given.get(request.key);
      if (answer === undefined || request.key === undefined) return this.#ask(run, request);
      given.delete(request.key);
      return Promise.resolve(answer);
    };
    const call = runWithTaskMark(run.mark, () =>
      this.#executor.execute(record.toolId, rawArgs, {
        callId: taskId,
        sessionId: options.sessionId ?? 'default',
        ...(options.principal ? { principal: options.principal } : {}),
        signal,
        onEvent: (event) => progress.take(event),
        confirm: options.confirm ?? ((request) => confirmThroughInput(request, requestInput)),
        requestInput,
      }),
    );
    void call
      .then(
        async (result) => {
          progress.stop();
          if (run.isStopped) return;
          if (!result.ok && result.error.details?.crashed === true) {
            // The tool crashed (threw) instead of answering: the task could not produce a
            // result, which is what `failed` means.
            await this.#finish(taskId, 'failed', undefined, {
              statusMessage: `The tool crashed before it answered: ${result.error.message.slice(0, 500)}. Run the call again; if it crashes again, report it.`,
            });
            return;
          }
          const bounded = boundResult(result, this.#maxResultBytes);
          // A tool that ran and reported an error has completed: its result says what failed
          // (`isError`). `failed` is kept for a task that could not produce a result.
          await this.#finish(taskId, 'completed', bounded, {
            statusMessage: result.ok
              ? 'Completed.'
              : `Completed with a tool error (${result.error.code}); read the result for what to do next.`,
          });
        },
        async () => {
          if (run.isStopped) return;
          await this.#finish(taskId, 'failed', undefined, {
            statusMessage:
              'The call could not be run to the end (an internal error); run it again.',
          });
        },
      )
      .catch(() => undefined)
      .finally(() => {
        resolveSettled();
        if (!run.isStopped) this.#runs.delete(taskId);
      });
  }

  /**
   * The tool asks its client: the task waits in `input_required` until the owner answers. A tool
   * that asks several questions at once waits on all of them; the task is `working` again once
   * the last is answered.
   */
  async #ask(run: LocalRun, request: InputRequest): Promise<InputResponse> {
    const requestId = newRequestId();
    const waiting = run.waitForAnswer(requestId);
    run.questions = [...run.questions, { requestId, request }];
    await this.#write(run.taskId, {
      status: 'input_required',
      inputRequests: run.questions,
      statusMessage: `Waiting for input (${request.method}): answer it to go on.`,
    });
    try {
      return await waiting;
    } finally {
      run.questions = run.questions.filter((question) => question.requestId !== requestId);
      if (!run.isStopped) {
        await this.#write(
          run.taskId,
          run.questions.length > 0
            ? { inputRequests: run.questions }
            : {
                status: 'working',
                statusMessage: 'Input received; working.',
                clear: ['inputRequests', 'inputResponses'],
              },
        );
      }
    }
  }

  /** A signal for a task this replica runs: a cancel, or an answer given on another replica. */
  async #onSignal(message: TaskSignal): Promise<void> {
    const run = this.#runs.get(message.taskId);
    if (run === undefined) return;
    await this.#applyControl(run).catch(() => undefined);
  }

  /** Re-reads the tasks this replica runs, for a cancel or an answer whose signal was lost. */
  async #pollRuns(): Promise<void> {
    for (const run of [...this.#runs.values()]) {
      if (run.isStopped) continue;
      await this.#applyControl(run).catch(() => undefined);
    }
  }

  async #applyControl(run: LocalRun): Promise<void> {
    const record = await this.#store.get(run.taskId);
    if (record === undefined) return;
    // Cancelled, or ended elsewhere (reported failed while this replica was thought dead): the
    // work stops, since its result would be dropped anyway.
    if (record.cancelRequested === true || isTerminalTaskStatus(record.status)) {
      await this.#stopRun(run);
      return;
    }
    for (const answer of record.inputResponses ?? []) {
      if (run.isWaitingOn(answer.requestId)) run.answer(answer.requestId, answer.response);
    }
  }

  #stopRun(run: LocalRun): Promise<number> {
    const stopping = run.stop(new Error('the task was cancelled'), this.#killGraceMs);
    // A tool that ignores its signal never settles: the run is forgotten once its processes end.
    void stopping.finally(() => this.#runs.delete(run.taskId));
    return stopping;
  }

  /** Changes a running task, and tells listeners and waiters. */
  async #write(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const updated = await this.#store.update(taskId, patch).catch(() => undefined);
    if (updated) this.#emit(updated);
    return updated;
  }

  /** Ends a running task with `status` (a task that has ended stays as it is). */
  #finish(
    taskId: string,
    status: TaskStatus,
    result: ToolResult | undefined,
    patch: TaskPatch,
  ): Promise<TaskRecord | undefined> {
    return this.#write(taskId, {
      ...patch,
      status,
      ...(result ? { result } : {}),
      clear: ['inputRequests', 'inputResponses'],
    });
  }

  /** A task of the caller's, reconciled with its replica's liveness; NOT_FOUND otherwise. */
  async #owned(taskId: string, principal: CallPrincipal | undefined): Promise<TaskRecord> {
    if (!isWellFormedTaskId(taskId)) throw taskNotFound(String(taskId));
    let record: TaskRecord | undefined;
    try {
      record = await this.#store.get(taskId);
      if (record !== undefined && record.owner === principalKey(principal)) {
        return await this.#reconcile(record);
      }
    } catch (error) {
      throw asTaskError(error);
    }
    throw taskNotFound(taskId);
  }

  /** A running task whose replica is gone has failed: say so, never leave it `working`. */
  async #reconcile(record: TaskRecord): Promise<TaskRecord> {
    if (isTerminalTaskStatus(record.status)) return record;
    if (record.replicaId === this.#store.replicaId && this.#runs.has(record.taskId)) return record;
    if (record.replicaId !== this.#store.replicaId) {
      if (await this.#store.isReplicaAlive(record.replicaId)) return record;
    }
    const failed = await this.#finish(record.taskId, 'failed', undefined, {
      statusMessage:
        'The host running this task stopped (it was restarted, shut down or crashed) before the task ended, so it did not finish. Run the call again.',
    });
    // Processes the dead host left running on this machine are ended with the task.
    if (record.processMark !== undefined) {
      void signalMarkedProcesses(TASK_MARK_VARIABLE, record.processMark, 'SIGKILL');
    }
    return failed ?? record;
  }

  #emit(record: TaskRecord): void {
    const event = { owner: record.owner, task: toProtocolTask(record) };
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own.
      }
    }
    for (const wake of [...this.#changed]) wake();
  }

  /** Waits for a local change, `ms`, or the signal (rejects with its reason). */
  #changeOrTimeout(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const done = () => {
        clearTimeout(timer);
        this.#changed.delete(done);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      const timer = setTimeout(done, Math.max(50, ms));
      this.#changed.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (this.#closed) done();
    });
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw new TaskError(
        TaskErrorCode.STORE_UNAVAILABLE,
        'the task service is stopping; try again on another replica or after the restart.',
      );
    }
  }
}

function cancelledResult(record: TaskRecord): ToolResult {
  return failureResult(
    ToolErrorCode.EXECUTION_FAILED,
    `${record.toolId} was cancelled while it ran: the call was stopped and the processes it started were ended; files it was writing may be incomplete.`,
    {
      retryable: false,
      hint: 'The task was cancelled; do not run it again unless asked to.',
      details: { cancelled: true },
    },
  );
}

/** The result of a task that ended without one (its host stopped). */
function missingResult(record: TaskRecord): ToolResult {
  return failureResult(
    ToolErrorCode.EXECUTION_FAILED,
    record.statusMessage ?? `task ${record.taskId} ended (${record.status}) without a result.`,
    { retryable: true, hint: 'Run the call again.' },
  );
}
