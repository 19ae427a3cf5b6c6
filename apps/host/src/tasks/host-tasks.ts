// The host's task service, opened on the first task: a deployment whose clients never start a
// task loads neither the task code nor its store.
import type { ToolExecutor } from '@toolsys/core-tool-registry';
import type { SharedState } from '@toolsys/state-redis';
import type { TaskService } from '@toolsys/tasks';
import { type OpenedTaskService, openTaskService } from './open-task-service.js';

/** What {@link HostTasks} opens its service with. */
export interface HostTasksOptions {
  /** Runs every task's call (in its caller's call scope, see `ToolHost`). */
  readonly executor: ToolExecutor;
  /** The data dir: the embedded store is `<dataDir>/tasks.sqlite`. */
  readonly dataDir: string;
  /** The deployment's shared state (`state.redis`): tasks then live in Redis. */
  readonly sharedState?: SharedState;
}

/** The deployment's tasks: one service per host process, opened on first use. */
export class HostTasks {
  readonly #options: HostTasksOptions;
  #opened: Promise<OpenedTaskService> | undefined;

  constructor(options: HostTasksOptions) {
    this.#options = options;
  }

  /** The task service (opened now if it is not yet). */
  async service(): Promise<TaskService> {
    this.#opened ??= openTaskService(this.#options);
    this.#opened.catch(() => {
      // A store that could not open is tried again on the next task.
      this.#opened = undefined;
    });
    return (await this.#opened).service;
  }

  /** The service if it was opened already (status notifications need no store of their own). */
  async opened(): Promise<TaskService | undefined> {
    if (this.#opened === undefined) return undefined;
    return (await this.#opened.catch(() => undefined))?.service;
  }

  /** Stops the tasks this process runs (reported failed) and closes the store. */
  async close(): Promise<void> {
    const opened = await this.#opened?.catch(() => undefined);
    this.#opened = undefined;
    await opened?.close();
  }
}
