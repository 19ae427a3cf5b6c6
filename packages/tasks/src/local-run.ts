import type { InputResponse, TaskInputRequest } from '@toolsys/core-tool-registry';
import { signalMarkedProcesses, TASK_MARK_VARIABLE } from '@toolsys/platform';

/** A question of a running task waiting for its answer. */
interface PendingInput {
  readonly requestId: string;
  resolve(response: InputResponse): void;
  reject(reason: unknown): void;
}

/**
 * A task this replica runs: the abort controller its call listens to, the mark its processes
 * carry, and the questions it waits on. Stopping it aborts the call, then ends every process that
 * carries its mark (SIGTERM at once, SIGKILL after the grace period, a last sweep after that), so
 * that a tool that ignores its signal still loses its processes.
 */
export class LocalRun {
  readonly taskId: string;
  /** The `principalKey` of the task's owner. */
  readonly owner: string;
  /** The value of the task's process mark. */
  readonly mark: string;
  readonly controller = new AbortController();
  /** Settles when the call's promise settles (never, for a tool that hangs). */
  readonly settled: Promise<void>;
  readonly #pending = new Map<string, PendingInput>();
  /** The questions the task waits on, in the order asked (what its record shows). */
  questions: readonly TaskInputRequest[] = [];
  #stopping: Promise<number> | undefined;

  constructor(taskId: string, mark: string, settled: Promise<void>, owner: string) {
    this.taskId = taskId;
    this.owner = owner;
    this.mark = mark;
    this.settled = settled;
  }

  /** Whether the task was told to stop. */
  get isStopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** Whether the task waits on question `requestId`. */
  isWaitingOn(requestId: string): boolean {
    return this.#pending.has(requestId);
  }

  /** Waits for the answer to question `requestId`; rejects when the task stops first. */
  waitForAnswer(requestId: string): Promise<InputResponse> {
    return new Promise<InputResponse>((resolve, reject) => {
      if (this.isStopped) {
        reject(this.controller.signal.reason);
        return;
      }
      this.#pending.set(requestId, { requestId, resolve, reject });
    });
  }

  /** Gives a waiting question its answer; false when the task waits on no such question. */
  answer(requestId: string, response: InputResponse): boolean {
    const pending = this.#pending.get(requestId);
    if (pending === undefined) return false;
    this.#pending.delete(requestId);
    pending.resolve(response);
    return true;
  }

  /**
   * Stops the task: aborts its call with `reason` and ends its processes. Resolves with how many
   * processes were signalled, once the last sweep ran (about three grace periods later).
   */
  stop(reason: Error, graceMs: number): Promise<number> {
    if (this.#stopping) return this.#stopping;
    this.controller.abort(reason);
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const waiting of pending) waiting.reject(reason);
    this.#stopping = this.#endProcesses(graceMs);
    return this.#stopping;
  }

  async #endProcesses(graceMs: number): Promise<number> {
    const ended = new Set<number>();
    const sweep = async (signal: NodeJS.Signals) => {
      for (const pid of await signalMarkedProcesses(TASK_MARK_VARIABLE, this.mark, signal)) {
        ended.add(pid);
      }
    };
    await sweep('SIGTERM');
    await delay(graceMs);
    await sweep('SIGKILL');
    // Processes started while the first sweeps ran (a tool that ignores its signal starts more).
    await delay(graceMs * 2);
    await sweep('SIGKILL');
    return ended.size;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
