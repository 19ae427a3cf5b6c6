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
import type { RedisConnection } from './redis-connection.js';
import type { ReplicaHeartbeat } from './replica-heartbeat.js';
import { sessionDigest } from './session-digest.js';

/**
 * KEYS: the task hash. ARGV: expected version, new record JSON, new status, expiry ms. Writes the
 * record only when the stored version is the expected one and the task has not ended; returns 1
 * when written, 0 when the version moved (read again and retry), -1 when the task has ended or is
 * gone.
 */
export const TASK_UPDATE_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return -1 end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return -1 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'status', ARGV[3], 'version', tostring(tonumber(ARGV[1]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/**
 * KEYS: the replica set of the heartbeat. ARGV: replica id. 1 when the replica's heartbeat has not
 * expired by Redis time, else 0.
 */
export const REPLICA_ALIVE_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if tonumber(score) >= now then return 1 end
return 0
`;

/** How long a running task's record is kept without an update, in ms (its replica's death is noticed long before). */
const RUNNING_KEEP_MS = 86_400_000;
/** The shortest time an ended task stays readable, in ms, whatever its time-to-live. */
const MIN_ENDED_KEEP_MS = 60_000;
/** Retries of an update whose version moved meanwhile. */
const MAX_UPDATE_RETRIES = 8;

/** Options for {@link RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** This replica's heartbeat (the liveness other replicas read). */
  heartbeat: ReplicaHeartbeat;
  /** Wall clock, ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

interface TaskCommands {
  toolsysTaskUpdate(
    key: string,
    version: string,
    record: string,
    status: string,
    expiryMs: number,
  ): Promise<number>;
  toolsysReplicaAlive(key: string, replicaId: string): Promise<number>;
}

/**
 * Tasks in Redis, shared by every replica: any replica answers for a task that runs on another,
 * a cancel or an answer reaches the running replica by pub/sub (the running replica also re-reads
 * its tasks, so a lost message only delays it), and a task whose replica's heartbeat stopped is
 * known to have died with it. Records expire by themselves (`PEXPIRE`). Every operation is
 * bounded; while Redis does not answer, operations reject with `STORE_UNAVAILABLE`-worthy errors
 * (tasks have no local fallback: a task must be readable from every replica).
 */
export class RedisTaskStore implements TaskStore {
  readonly replicaId: string;
  readonly #connection: RedisConnection;
  readonly #heartbeat: ReplicaHeartbeat;
  readonly #now: () => number;
  readonly #listeners = new Set<(message: TaskSignal) => void>();
  readonly #unsubscribe: () => void;

  constructor(options: RedisTaskStoreOptions) {
    this.#connection = options.connection;
    this.#heartbeat = options.heartbeat;
    this.replicaId = options.heartbeat.replicaId;
    this.#now = options.now ?? Date.now;
    this.#connection.defineScript('toolsysTaskUpdate', 1, TASK_UPDATE_SCRIPT);
    this.#connection.defineScript('toolsysReplicaAlive', 1, REPLICA_ALIVE_SCRIPT);
    this.#unsubscribe = this.#connection.subscribe(this.#channel(this.replicaId), (text) => {
      const message = parseSignal(text);
      if (message) for (const listener of [...this.#listeners]) listener(message);
    });
  }

  async create(record: TaskRecord): Promise<void> {
    const key = this.#taskKey(record.taskId);
    const index = this.#ownerKey(record.owner);
    const done = await this.#connection.run((redis) =>
      redis
        .multi()
        .hset(key, 'record', JSON.stringify(record), 'status', record.status, 'version', '0')
        .pexpire(key, this.#expiryMs(record))
        .zadd(index, record.createdAt, record.taskId)
        .pexpire(index, RUNNING_KEEP_MS)
        .exec(),
    );
    if (!done) throw unavailable();
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const read = await this.#read(taskId);
    return read?.record;
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < MAX_UPDATE_RETRIES; attempt += 1) {
      const current = await this.#read(taskId);
      if (current === undefined || isTerminalTaskStatus(current.record.status)) {
        return current?.record;
      }
      const next = applyTaskPatch(current.record, patch, this.#now());
      const written = await this.#connection.run((redis) =>
        (redis as unknown as TaskCommands).toolsysTaskUpdate(
          this.#taskKey(taskId),
          current.version,
          JSON.stringify(next),
          next.status,
          this.#expiryMs(next),
        ),
      );
      if (written === undefined) throw unavailable();
      if (written === 1) return next;
      if (written === -1) return (await this.#read(taskId))?.record;
    }
    throw unavailable();
  }

  async list(owner: string, options: { cursor?: string; limit: number }): Promise<TaskPage> {
    const limit = Math.max(1, Math.min(100, Math.floor(options.limit)));
    const offset = options.cursor === undefined ? 0 : Number.parseInt(options.cursor, 36);
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > 1_000_000) {
      throw Object.assign(new Error('cursor: not a cursor tasks/list returned'), {
        code: 'INVALID_CURSOR',
      });
    }
    const index = this.#ownerKey(owner);
    const ids = await this.#connection.run((redis) =>
      redis.zrevrange(index, offset, offset + limit),
    );
    if (ids === undefined) throw unavailable();
    const page = ids.slice(0, limit);
    const records = await Promise.all(page.map((id) => this.#read(id)));
    const gone = page.filter((_, i) => records[i] === undefined);
    if (gone.length > 0) void this.#connection.run((redis) => redis.zrem(index, ...gone));
    const tasks = records
      .map((read) => read?.record)
      .filter((record): record is TaskRecord => record !== undefined && record.owner === owner);
    return ids.length > limit ? { tasks, nextCursor: (offset + limit).toString(36) } : { tasks };
  }

  async signal(message: TaskSignal, replicaId: string): Promise<void> {
    if (replicaId === this.replicaId) {
      for (const listener of [...this.#listeners]) listener(message);
      return;
    }
    // Lost messages only delay: the running replica re-reads its tasks' records.
    await this.#connection.run((redis) =>
      redis.publish(this.#connection.key(this.#channel(replicaId)), JSON.stringify(message)),
    );
  }

  onSignal(listener: (message: TaskSignal) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async isReplicaAlive(replicaId: string): Promise<boolean> {
    if (replicaId === this.replicaId) return true;
    const alive = await this.#connection.run((redis) =>
      (redis as unknown as TaskCommands).toolsysReplicaAlive(
        this.#connection.key('replicas'),
        replicaId,
      ),
    );
    // Without an answer nothing is known: a task is never failed on a guess.
    if (alive === undefined) throw unavailable();
    return alive === 1;
  }

  close(): Promise<void> {
    this.#unsubscribe();
    this.#listeners.clear();
    return Promise.resolve();
  }

  async #read(taskId: string): Promise<{ record: TaskRecord; version: string } | undefined> {
    const key = this.#taskKey(taskId);
    const fields = await this.#connection.run((redis) => redis.hmget(key, 'record', 'version'));
    if (fields === undefined) throw unavailable();
    const [text, version] = fields;
    if (typeof text !== 'string' || typeof version !== 'string') return undefined;
    const record = parseTaskRecord(text);
    if (record === undefined || record.taskId !== taskId) {
      this.#connection.reportInvalid(key, 'not a task record');
      return undefined;
    }
    return { record, version };
  }

  /** A running task is kept while it runs; an ended one for its time-to-live after creation. */
  #expiryMs(record: TaskRecord): number {
    if (!isTerminalTaskStatus(record.status)) return Math.max(RUNNING_KEEP_MS, record.ttlMs);
    return Math.max(MIN_ENDED_KEEP_MS, record.createdAt + record.ttlMs - this.#now());
  }

  #taskKey(taskId: string): string {
    return this.#connection.key('tasks', 't', taskId);
  }

  /** The owner's index, under a digest so that no principal name is a key. */
  #ownerKey(owner: string): string {
    return this.#connection.key('tasks', 'o', sessionDigest(owner));
  }

  #channel(replicaId: string): string {
    return `tasks:signal:${replicaId}`;
  }
}

function parseSignal(text: string): TaskSignal | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<TaskSignal> | null;
    if (
      parsed !== null &&
      typeof parsed.taskId === 'string' &&
      (parsed.kind === 'cancel' || parsed.kind === 'input')
    ) {
      return { kind: parsed.kind, taskId: parsed.taskId };
    }
  } catch {
    // Not one of ours.
  }
  return undefined;
}

function unavailable(): Error {
  return Object.assign(new Error('the shared task store (Redis) did not answer'), {
    code: 'STORE_UNAVAILABLE',
  });
}
