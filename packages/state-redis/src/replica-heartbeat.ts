import type { Redis } from 'ioredis';
import type { RedisConnection } from './redis-connection.js';

/**
 * KEYS: the replica set. ARGV: replica id, ttl ms. Marks the replica alive until Redis time + ttl
 * (its score), drops every member whose time passed, and returns the live members. A score further
 * ahead than one ttl was not written by a replica and is ignored (such a member only makes every
 * fair share smaller, never larger).
 */
export const HEARTBEAT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return redis.call('ZRANGEBYSCORE', KEYS[1], now, now + ttl + 1000, 'LIMIT', 0, 1000)
`;

/** Options for {@link ReplicaHeartbeat}. */
export interface ReplicaHeartbeatOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** This replica's id in the set (unique per process). */
  replicaId: string;
  /** Interval of the heartbeat, in ms. Default 1000. */
  intervalMs?: number;
  /**
   * A replica missing this long is no longer counted, in ms. Default 5 × the interval, at least
   * 5 s: a replica whose event loop stalls on a saturated machine must not drop out (that would
   * grow everyone's fair share); a dead one is counted a little longer, which only shrinks them.
   */
  ttlMs?: number;
}

interface HeartbeatCommands {
  toolsysHeartbeat(key: string, replicaId: string, ttlMs: number): Promise<string[]>;
}

/**
 * This replica's heartbeat in a Redis sorted set with expiry (`<prefix>replicas`, score = the time
 * the member expires), and the live replicas it reads back: the divisor of every fair share while
 * Redis is missed. While Redis is away the last known count stays (never less than 1).
 */
export class ReplicaHeartbeat {
  /** This replica's id. */
  readonly replicaId: string;
  readonly #connection: RedisConnection;
  readonly #key: string;
  readonly #ttlMs: number;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #unsubscribe: () => void;
  #live: readonly string[];
  #observed = 0;
  /** The largest count seen within the last ttl, and when: a count only drops after a ttl. */
  #highWater = { count: 1, at: 0 };
  #closed = false;

  constructor(options: ReplicaHeartbeatOptions) {
    this.#connection = options.connection;
    this.replicaId = options.replicaId;
    const interval = Math.max(50, options.intervalMs ?? 1000);
    this.#ttlMs = Math.max(interval * 2, options.ttlMs ?? Math.max(5000, interval * 5));
    this.#key = this.#connection.key('replicas');
    this.#live = [this.replicaId];
    this.#connection.defineScript('toolsysHeartbeat', 1, HEARTBEAT_SCRIPT);
    this.#timer = setInterval(() => void this.beat(), interval);
    this.#timer.unref?.();
    // Counted before the first shared call after an outage, not an interval later.
    this.#unsubscribe = this.#connection.onResync((client) => this.#beatOn(client));
  }

  /**
   * Replicas alive (this one included, at least 1): the larger of the last heartbeat's list and
   * the count the last shared call observed (a replica that joined since the last heartbeat).
   */
  get liveCount(): number {
    const now = Date.now();
    const current = Math.max(1, this.#live.length, this.#observed);
    if (current >= this.#highWater.count || now - this.#highWater.at > this.#ttlMs) {
      this.#highWater = { count: current, at: now };
    }
    return Math.max(current, this.#highWater.count);
  }

  /** Takes a live count read by another script (reset at each heartbeat). */
  observe(count: number): void {
    if (Number.isInteger(count) && count > 0 && count <= 1000) this.#observed = count;
  }

  /** The ids of the replicas alive at the last heartbeat answered, sorted. */
  live(): readonly string[] {
    return this.#live;
  }

  /** Sends one heartbeat now (bounded; a miss keeps the last known count). */
  async beat(): Promise<void> {
    if (this.#closed) return;
    const members = await this.#connection.run((redis) =>
      (redis as unknown as HeartbeatCommands).toolsysHeartbeat(
        this.#key,
        this.replicaId,
        this.#ttlMs,
      ),
    );
    if (members) this.#accept(members);
  }

  /** Stops the heartbeat and leaves the set (best effort), so the others' shares grow at once. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#unsubscribe();
    await this.#connection.run((redis) => redis.zrem(this.#key, this.replicaId));
  }

  async #beatOn(client: Redis): Promise<void> {
    if (this.#closed) return;
    const members = await (client as unknown as HeartbeatCommands).toolsysHeartbeat(
      this.#key,
      this.replicaId,
      this.#ttlMs,
    );
    this.#accept(members);
  }

  #accept(members: unknown): void {
    if (!Array.isArray(members)) return;
    const ids = members.filter((member): member is string => typeof member === 'string');
    if (!ids.includes(this.replicaId)) ids.push(this.replicaId);
    this.#live = ids.sort();
    this.#observed = 0;
  }
}
