import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  applyTaskPatch,
  isTerminalTaskStatus,
  parseTaskRecord,
  type TaskPage,
  type TaskPatch,
  type TaskRecord,
  type TaskSignal,
  type TaskStore,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import type BetterSqlite3 from 'better-sqlite3';
import { decodeTaskCursor, encodeTaskCursor } from './task-cursor.js';
import { asTaskError, TaskError, TaskErrorCode } from './task-error.js';

/** better-sqlite3, loaded on the first open: importing this package loads no native module. */
const sqlite = lazyModule<typeof BetterSqlite3>('better-sqlite3', import.meta.url);

/** How often ended tasks past their time-to-live are deleted, in ms. */
const PURGE_INTERVAL_MS = 60_000;
/** How often this process marks itself alive in the file, in ms. */
const HEARTBEAT_INTERVAL_MS = 1_000;
/** A process that has not marked itself alive for this long is dead, in ms. */
const HEARTBEAT_TTL_MS = 5_000;

/** Options for {@link SqliteTaskStore.open}. */
export interface SqliteTaskStoreOptions {
  /** The database file (created with its folder when missing), e.g. `<dataDir>/tasks.sqlite`. */
  path: string;
  /** This process's replica id. Default: `p-` and 12 random hex digits, new at each start. */
  replicaId?: string;
  /** Wall clock, ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/**
 * Tasks in one embedded SQLite file (WAL): records and results survive a restart of the host.
 * Each process marks itself alive in the file every second; a task whose process stopped marking
 * (a host that died or was restarted) is reported failed by the task service. Several processes
 * may share the file (two hosts on one data dir): signals stay in their process, and the process
 * running a task picks up a cancel or an answer given elsewhere by re-reading its tasks.
 */
export class SqliteTaskStore implements TaskStore {
  readonly replicaId: string;
  /** The file path given at open. */
  readonly path: string;
  readonly #database: BetterSqlite3.Database;
  readonly #now: () => number;
  readonly #signals = new EventEmitter();
  readonly #purge: ReturnType<typeof setInterval>;
  readonly #heartbeat: ReturnType<typeof setInterval>;
  readonly #statements: {
    insert: BetterSqlite3.Statement;
    get: BetterSqlite3.Statement;
    write: BetterSqlite3.Statement;
    firstPage: BetterSqlite3.Statement;
    nextPage: BetterSqlite3.Statement;
    purge: BetterSqlite3.Statement;
    beat: BetterSqlite3.Statement;
    alive: BetterSqlite3.Statement;
    leave: BetterSqlite3.Statement;
  };
  #closed = false;

  private constructor(database: BetterSqlite3.Database, options: SqliteTaskStoreOptions) {
    this.#database = database;
    this.path = options.path;
    this.replicaId = options.replicaId ?? `p-${randomBytes(6).toString('hex')}`;
    this.#now = options.now ?? Date.now;
    this.#statements = {
      insert: database.prepare(
        'INSERT INTO tasks (task_id, owner, created_at, expires_at, status, record) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      get: database.prepare('SELECT record FROM tasks WHERE task_id = ?'),
      write: database.prepare(
        'UPDATE tasks SET status = ?, expires_at = ?, record = ? WHERE task_id = ?',
      ),
      firstPage: database.prepare(
        'SELECT record FROM tasks WHERE owner = ? ORDER BY created_at DESC, task_id DESC LIMIT ?',
      ),
      nextPage: database.prepare(
        'SELECT record FROM tasks WHERE owner = ? AND (created_at < ? OR (created_at = ? AND task_id < ?)) ORDER BY created_at DESC, task_id DESC LIMIT ?',
      ),
      purge: database.prepare(
        "DELETE FROM tasks WHERE expires_at <= ? AND status IN ('completed', 'failed', 'cancelled')",
      ),
      beat: database.prepare(
        'INSERT INTO task_replicas (replica_id, alive_until) VALUES (?, ?) ON CONFLICT (replica_id) DO UPDATE SET alive_until = excluded.alive_until',
      ),
      alive: database.prepare('SELECT alive_until FROM task_replicas WHERE replica_id = ?'),
      leave: database.prepare('DELETE FROM task_replicas WHERE replica_id = ? OR alive_until < ?'),
    };
    // Processes sharing the file (two hosts on one data dir) see each other alive; a host that
    // died stops beating, and its running tasks are then reported failed.
    this.#beat();
    this.#heartbeat = setInterval(() => this.#beat(), HEARTBEAT_INTERVAL_MS);
    this.#heartbeat.unref?.();
    this.#purge = setInterval(() => this.#purgeExpired(), PURGE_INTERVAL_MS);
    this.#purge.unref?.();
    this.#purgeExpired();
  }

  /** Opens (creating when needed) the task database. */
  static open(options: SqliteTaskStoreOptions): SqliteTaskStore {
    mkdirSync(dirname(options.path), { recursive: true });
    const Database = sqlite();
    const database = new Database(options.path);
    try {
      database.pragma('journal_mode = WAL');
      database.pragma('busy_timeout = 5000');
      database.exec(`CREATE TABLE IF NOT EXISTS tasks (
        task_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        status TEXT NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX IF NOT EXISTS tasks_by_owner ON tasks (owner, created_at DESC, task_id DESC);
      CREATE TABLE IF NOT EXISTS task_replicas (
        replica_id TEXT PRIMARY KEY,
        alive_until INTEGER NOT NULL
      ) STRICT;`);
      return new SqliteTaskStore(database, options);
    } catch (error) {
      database.close();
      throw error;
    }
  }

  create(record: TaskRecord): Promise<void> {
    return this.#guard(() => {
      this.#statements.insert.run(
        record.taskId,
        record.owner,
        record.createdAt,
        expiresAt(record),
        record.status,
        JSON.stringify(record),
      );
    });
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#guard(() => this.#read(taskId));
  }

  update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    return this.#guard(() =>
      this.#database
        .transaction(() => {
          const current = this.#read(taskId);
          if (current === undefined || isTerminalTaskStatus(current.status)) return current;
          const next = applyTaskPatch(current, patch, this.#now());
          this.#statements.write.run(next.status, expiresAt(next), JSON.stringify(next), taskId);
          return next;
        })
        .immediate(),
    );
  }

  list(owner: string, options: { cursor?: string; limit: number }): Promise<TaskPage> {
    return this.#guard(() => {
      const limit = Math.max(1, Math.min(100, Math.floor(options.limit)));
      let rows: { record: string }[];
      if (options.cursor === undefined) {
        rows = this.#statements.firstPage.all(owner, limit + 1) as { record: string }[];
      } else {
        const after = decodeTaskCursor(options.cursor);
        if (after === undefined) throw invalidCursor();
        rows = this.#statements.nextPage.all(
          owner,
          after.createdAt,
          after.createdAt,
          after.taskId,
          limit + 1,
        ) as { record: string }[];
      }
      const now = this.#now();
      const tasks = rows
        .slice(0, limit)
        .map((row) => parseTaskRecord(row.record))
        .filter((record): record is TaskRecord => record !== undefined && isLive(record, now));
      const last = tasks.at(-1);
      return rows.length > limit && last
        ? { tasks, nextCursor: encodeTaskCursor(last.createdAt, last.taskId) }
        : { tasks };
    });
  }

  signal(message: TaskSignal, replicaId: string): Promise<void> {
    // Another process sharing the file picks the change up when it re-reads its running tasks.
    if (replicaId === this.replicaId) this.#signals.emit('signal', message);
    return Promise.resolve();
  }

  onSignal(listener: (message: TaskSignal) => void): () => void {
    this.#signals.on('signal', listener);
    return () => this.#signals.off('signal', listener);
  }

  isReplicaAlive(replicaId: string): Promise<boolean> {
    if (replicaId === this.replicaId) return Promise.resolve(true);
    return this.#guard(() => {
      const row = this.#statements.alive.get(replicaId) as { alive_until: number } | undefined;
      return row !== undefined && row.alive_until > this.#now();
    });
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearInterval(this.#purge);
      clearInterval(this.#heartbeat);
      this.#signals.removeAllListeners();
      try {
        this.#statements.leave.run(this.replicaId, this.#now());
      } catch {
        // Its row expires on its own.
      }
      this.#database.close();
    }
    return Promise.resolve();
  }

  #read(taskId: string): TaskRecord | undefined {
    const row = this.#statements.get.get(taskId) as { record: string } | undefined;
    const record = parseTaskRecord(row?.record);
    return record && isLive(record, this.#now()) ? record : undefined;
  }

  #beat(): void {
    if (this.#closed) return;
    try {
      this.#statements.beat.run(this.replicaId, this.#now() + HEARTBEAT_TTL_MS);
    } catch {
      // A busy file: the next beat comes within the margin of the time-to-live.
    }
  }

  #purgeExpired(): void {
    if (this.#closed) return;
    try {
      this.#statements.purge.run(this.#now());
    } catch {
      // A busy or failing disk: the next round tries again; expired records are hidden meanwhile.
    }
  }

  /** Runs a synchronous database step as a promise; a failing disk becomes STORE_UNAVAILABLE. */
  #guard<T>(step: () => T): Promise<T> {
    try {
      if (this.#closed) throw new Error('the task store is closed');
      return Promise.resolve(step());
    } catch (error) {
      // The cause (a path, a lock) stays here: the caller learns only that the store failed.
      return Promise.reject(asTaskError(error));
    }
  }
}

/** When an ended task may be deleted: its time-to-live after creation. */
function expiresAt(record: TaskRecord): number {
  return record.createdAt + record.ttlMs;
}

/** A running task is kept whatever its age; an ended one until its time-to-live passes. */
function isLive(record: TaskRecord, now: number): boolean {
  return !isTerminalTaskStatus(record.status) || expiresAt(record) > now;
}

function invalidCursor(): TaskError {
  return new TaskError(
    TaskErrorCode.INVALID_CURSOR,
    'cursor: not a cursor tasks/list returned; call tasks/list without a cursor to start again.',
  );
}
