import {
  type RateLimitDecision,
  type RateLimiterLike,
  type RateLimiterState,
  ToolRateLimiter,
  type ToolRateLimiterOptions,
} from '@toolsys/core-tool-registry';
import type { RedisConnection } from './redis-connection.js';

/**
 * The token bucket of core's ToolRateLimiter, atomically in one script: capacity = the per-minute
 * quota, continuous refill of `quota / 60 000` tokens per ms, one token per call, retry-after =
 * time until one token is back. Time comes from Redis `TIME`, so replicas with skewed clocks agree.
 * A bucket idle for a minute is full again, so its key expires then.
 *
 * What is read back is checked before it is used: tokens must be a number from 0 to the capacity,
 * the time one within the last hour (and not ahead of Redis's clock). Anything else (`inf`, `nan`,
 * `1e308`, a negative count, text) was not written by a replica: the bucket counts as absent (full)
 * and is overwritten, so garbage never lifts the limit and never locks the tool.
 * Returns { allowed (1|0), retryAfterMs, tokens (as text), invalid (1 when garbage was reset) }.
 */
export const TOKEN_BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local capacity = tonumber(ARGV[1])
local refill = capacity / 60000
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'updated', 'capacity')
local tokens = tonumber(stored[1])
local updated = tonumber(stored[2])
local invalid = 0
if stored[1] or stored[2] then
  -- NaN fails every comparison, so each check is written to pass only for a valid value.
  local validTokens = tokens ~= nil and tokens >= 0 and tokens <= capacity
  local validTime = updated ~= nil and updated >= now - 3600000 and updated <= now + 1000
  if not (validTokens and validTime) then invalid = 1 end
end
if invalid == 1 or tokens == nil or updated == nil or tonumber(stored[3]) ~= capacity then
  tokens = capacity
  updated = now
end
local elapsed = now - updated
if elapsed > 0 then
  tokens = math.min(capacity, tokens + elapsed * refill)
  updated = now
end
local allowed = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  retry = math.max(1, math.ceil((1 - tokens) / refill))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(updated), 'capacity', tostring(capacity))
redis.call('PEXPIRE', KEYS[1], 61000)
return { allowed, retry, tostring(tokens), invalid }
`;

/** Options for {@link RedisRateLimiter}. */
export interface RedisRateLimiterOptions extends ToolRateLimiterOptions {
  /** The shared connection. */
  connection: RedisConnection;
}

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true });

/** The script, defined on the client with `defineCommand` (EVALSHA, reloaded after a restart). */
interface BucketCommands {
  toolsysTokenBucket?(
    key: string,
    capacity: number,
  ): Promise<[number, number, string, number | undefined]>;
}

/**
 * A rate limiter whose buckets live in Redis, so N replicas together admit the configured rate,
 * not N times it. While Redis is down or slow (see {@link RedisConnection}) each replica decides
 * on its own in-process {@link ToolRateLimiter} at once (fail-open for availability: a call is
 * never blocked because Redis is down).
 */
export class RedisRateLimiter implements RateLimiterLike {
  /** The in-process limiter used while fallen back. */
  readonly local: ToolRateLimiter;
  readonly #connection: RedisConnection;
  readonly #shared = new Map<string, { ratePerMinute: number; tokens: number }>();

  constructor(options: RedisRateLimiterOptions) {
    this.#connection = options.connection;
    this.local = new ToolRateLimiter(options.clock ? { clock: options.clock } : {});
    const redis = this.#connection.redis;
    if (!(redis as BucketCommands).toolsysTokenBucket) {
      redis.defineCommand('toolsysTokenBucket', { numberOfKeys: 1, lua: TOKEN_BUCKET_SCRIPT });
    }
  }

  /** Takes one token; synchronous while unlimited or fallen back, else one bounded round trip. */
  tryAcquire(
    toolId: string,
    ratePerMinute: number | undefined,
  ): RateLimitDecision | Promise<RateLimitDecision> {
    if (ratePerMinute === undefined || !(ratePerMinute > 0) || !Number.isFinite(ratePerMinute)) {
      return ALLOWED;
    }
    if (this.#connection.mode !== 'shared') return this.local.tryAcquire(toolId, ratePerMinute);
    const key = this.#connection.key('rate', toolId);
    return this.#connection
      .run((redis) => {
        const command = (redis as BucketCommands).toolsysTokenBucket;
        if (!command) return Promise.reject(new Error('token bucket script not defined'));
        return command.call(redis, key, ratePerMinute);
      })
      .then((reply) => {
        if (!reply) return this.local.tryAcquire(toolId, ratePerMinute);
        const [allowed, retryAfterMs, tokens, invalid] = reply;
        if (invalid === 1) this.#connection.reportInvalid(key, 'a rate bucket');
        const left = Number(tokens);
        this.#shared.set(toolId, {
          ratePerMinute,
          tokens: Number.isFinite(left) ? Math.min(Math.max(left, 0), ratePerMinute) : 0,
        });
        if (allowed === 1) return ALLOWED;
        // An empty bucket has a token back within 60 000 / rate ms, whatever the reply says.
        const longest = Math.ceil(60_000 / ratePerMinute);
        const retry = Number(retryAfterMs);
        return {
          allowed: false,
          retryAfterMs: Number.isFinite(retry) ? Math.min(Math.max(1, retry), longest) : longest,
        };
      });
  }

  /**
   * Every bucket's state, sorted by tool id: the shared buckets as last seen by this replica while
   * shared, the local ones while fallen back.
   */
  snapshot(): RateLimiterState[] {
    if (this.#connection.mode !== 'shared') return this.local.snapshot();
    return [...this.#shared.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([toolId, bucket]) => ({
        toolId,
        ratePerMinute: bucket.ratePerMinute,
        tokens: Math.round(bucket.tokens * 1000) / 1000,
      }));
  }
}
