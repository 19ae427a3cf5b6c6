// The deployment's task service: tasks in SQLite under the data dir, or in Redis when the
// deployment shares state (`state.redis`), so that every replica answers for every task.
import { join } from 'node:path';
import type { ToolExecutor } from '@toolsys/core-tool-registry';
import type { SharedState } from '@toolsys/state-redis';
import type { TaskService, TaskServiceOptions } from '@toolsys/tasks';

/** The file of the embedded task store, under the data dir. */
export const TASKS_DATABASE_FILE = 'tasks.sqlite';

/** Options of {@link openTaskService}. */
export interface OpenTaskServiceOptions {
  /** The deployment's executor: every task's call runs through it. */
  readonly executor: ToolExecutor;
  /** The data dir: the embedded store is `<dataDir>/tasks.sqlite`. */
  readonly dataDir: string;
  /** The deployment's shared state, when `state.redis` is configured: tasks then live in Redis. */
  readonly sharedState?: SharedState;
  /** Time-to-live, poll interval and limits (see `TaskServiceOptions`). */
  readonly tuning?: Omit<TaskServiceOptions, 'executor' | 'store'>;
}

/** A running task service and how to stop it with its store. */
export interface OpenedTaskService {
  readonly service: TaskService;
  /** `sqlite` (one host) or `redis` (shared by replicas). */
  readonly storeKind: 'sqlite' | 'redis';
  /** Stops the tasks this replica runs (reported failed) and closes the store. */
  close(): Promise<void>;
}

/**
 * Opens the deployment's task service. The packages are imported here, on first use, so a
 * deployment that never serves a task loads neither SQLite nor the task code.
 */
export async function openTaskService(options: OpenTaskServiceOptions): Promise<OpenedTaskService> {
  const { TaskService, SqliteTaskStore } = await import('@toolsys/tasks');
  let store: import('@toolsys/core-tool-registry').TaskStore;
  let storeKind: OpenedTaskService['storeKind'];
  if (options.sharedState) {
    const { RedisTaskStore } = await import('@toolsys/state-redis');
    store = new RedisTaskStore({
      connection: options.sharedState.connection,
      heartbeat: options.sharedState.heartbeat,
    });
    storeKind = 'redis';
  } else {
    store = SqliteTaskStore.open({ path: join(options.dataDir, TASKS_DATABASE_FILE) });
    storeKind = 'sqlite';
  }
  const service = new TaskService({ ...options.tuning, executor: options.executor, store });
  return {
    service,
    storeKind,
    async close() {
      await service.close();
      await store.close();
    },
  };
}
