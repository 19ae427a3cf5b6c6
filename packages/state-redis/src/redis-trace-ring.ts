import type { ToolTraceRecorder, ToolTraceSpan } from '@toolsys/core-tool-registry';
import type { Redis } from 'ioredis';
import type { RedisConnection } from './redis-connection.js';

/** A span in the shared ring: the recorder's span plus the replica that recorded it. */
export interface SharedTraceSpan extends ToolTraceSpan {
  /** The replica's name (`state.redis.replicaId`, else host name and pid). */
  readonly replica: string;
}

/** Options for {@link RedisTraceRing}. */
export interface RedisTraceRingOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** This replica's name, stored with each span. */
  replica: string;
  /** Spans kept in Redis (LPUSH + LTRIM). Default 300. */
  capacity?: number;
  /**
   * Spans are pushed in one batch at most this often, in ms, so that a busy replica pays one
   * write per interval, not one per call. Default 100.
   */
  flushIntervalMs?: number;
}

/**
 * The recent spans of every replica in one bounded Redis list, for the dashboard. Spans are the
 * trace recorder's (argument digests, never raw values), pushed in one batch per flush interval
 * without waiting (and before this replica reads the ring); spans recorded while Redis is down are
 * kept (bounded) and pushed when it returns.
 */
export class RedisTraceRing {
  /** Spans kept in Redis. */
  readonly capacity: number;
  readonly #connection: RedisConnection;
  readonly #replica: string;
  readonly #flushIntervalMs: number;
  #pending: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #detach: (() => void)[] = [];

  constructor(options: RedisTraceRingOptions) {
    this.#connection = options.connection;
    this.#replica = options.replica;
    this.capacity = Math.max(1, Math.floor(options.capacity ?? 300));
    this.#flushIntervalMs = Math.max(0, options.flushIntervalMs ?? 100);
    this.#detach.push(this.#connection.onResync((redis) => this.#push(redis)));
  }

  /** Pushes every span the recorder records from now on. */
  attach(recorder: ToolTraceRecorder): void {
    this.#detach.push(recorder.onSpan((span) => this.add(span)));
  }

  /** Queues one span for the shared ring. */
  add(span: ToolTraceSpan): void {
    this.#pending.push(JSON.stringify({ ...span, replica: this.#replica }));
    if (this.#pending.length > this.capacity)
      this.#pending.splice(0, this.#pending.length - this.capacity);
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.#flushIntervalMs);
    this.#timer.unref?.();
  }

  /**
   * The newest `limit` spans of all replicas, oldest first; undefined while Redis cannot answer
   * (then show this replica's own spans).
   */
  async recent(limit = this.capacity): Promise<SharedTraceSpan[] | undefined> {
    const count = Math.max(1, Math.min(this.capacity, Math.floor(limit)));
    const key = this.#key();
    // This replica's own spans first (same connection, so they land before the read).
    this.#flush();
    const lines = await this.#connection.run((redis) => redis.lrange(key, 0, count - 1));
    if (!lines) return undefined;
    const spans: SharedTraceSpan[] = [];
    let invalid = 0;
    for (const line of lines) {
      // A value written by something else under the prefix is skipped (and reported once).
      const span = parseSpan(line);
      if (span) spans.push(span);
      else invalid += 1;
    }
    if (invalid > 0) this.#connection.reportInvalid(key, `${invalid} entries that are not spans`);
    return spans.reverse();
  }

  /** Stops pushing spans (those still queued are pushed now, without waiting). */
  close(): void {
    for (const detach of this.#detach.splice(0)) detach();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flush();
  }

  #flush(): void {
    if (this.#pending.length > 0 && this.#connection.mode === 'shared') {
      void this.#connection.run((redis) => this.#push(redis));
    }
  }

  async #push(redis: Redis): Promise<void> {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    const key = this.#key();
    try {
      await redis
        .multi()
        .lpush(key, ...batch)
        .ltrim(key, 0, this.capacity - 1)
        .exec();
    } catch (error) {
      // Kept for the next resync (bounded), then reported by the connection.
      this.#pending = [...batch, ...this.#pending].slice(-this.capacity);
      throw error;
    }
  }

  #key(): string {
    return this.#connection.key('traces');
  }
}

/** The longest entry read back as a span, in characters; a replica's spans are far smaller. */
const MAX_SPAN_CHARACTERS = 64 * 1024;

/** A span of the ring, or undefined when the entry is not one a replica wrote. */
function parseSpan(line: string): SharedTraceSpan | undefined {
  if (line.length > MAX_SPAN_CHARACTERS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const span = value as Partial<SharedTraceSpan>;
  const isSpan =
    typeof span.toolId === 'string' &&
    typeof span.durationMs === 'number' &&
    Number.isFinite(span.durationMs) &&
    (span.replica === undefined || typeof span.replica === 'string');
  return isSpan ? (span as SharedTraceSpan) : undefined;
}
