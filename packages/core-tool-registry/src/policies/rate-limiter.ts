import { SYSTEM_CLOCK, type ToolClock } from '../contract/clock.js';

/** The outcome of {@link ToolRateLimiter.tryAcquire}. */
export type RateLimitDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** Time until one token is available again, in ms (at least 1). */
      readonly retryAfterMs: number;
    };

/** A bucket's state, as plain JSON for dashboards. */
export interface RateLimiterState {
  readonly toolId: string;
  /** Calls allowed per minute (the bucket capacity). */
  readonly ratePerMinute: number;
  /** Tokens left now (fractional while refilling). */
  readonly tokens: number;
}

/**
 * What the executor needs of a rate limiter. The in-process {@link ToolRateLimiter} decides
 * synchronously; a limiter shared between processes may answer with a promise (the executor then
 * waits for it), and must settle it within a bounded time.
 */
export interface RateLimiterLike {
  /** Takes one token for `toolId` under a quota of `ratePerMinute` (undefined or ≤ 0: unlimited). */
  tryAcquire(
    toolId: string,
    ratePerMinute: number | undefined,
  ): RateLimitDecision | PromiseLike<RateLimitDecision>;
  /** Every bucket's state, sorted by tool id. */
  snapshot(): RateLimiterState[];
}

/** Options for {@link ToolRateLimiter}. */
export interface ToolRateLimiterOptions {
  /** Clock for refills. Default: the system clock. */
  clock?: ToolClock;
}

interface Bucket {
  capacity: number;
  tokens: number;
  refillPerMs: number;
  updatedAt: number;
}

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true });

/** Buckets kept before full ones (the same as no bucket) are forgotten. */
const PRUNE_AT = 4_096;

/**
 * A continuous-refill token bucket per tool: capacity = the per-minute quota, refilled at
 * `quota / 60 000` tokens per ms. Over the limit it rejects at once with a retry-after; it never
 * queues, so a runaway loop sees the error immediately.
 */
export class ToolRateLimiter implements RateLimiterLike {
  readonly #clock: ToolClock;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: ToolRateLimiterOptions = {}) {
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  /** Takes one token for `toolId` under a quota of `ratePerMinute` (undefined or ≤ 0: unlimited). */
  tryAcquire(toolId: string, ratePerMinute: number | undefined): RateLimitDecision {
    if (ratePerMinute === undefined || !(ratePerMinute > 0)) return ALLOWED;
    const now = this.#clock.now();
    let bucket = this.#buckets.get(toolId);
    if (!bucket || bucket.capacity !== ratePerMinute) {
      bucket = {
        capacity: ratePerMinute,
        tokens: ratePerMinute,
        refillPerMs: ratePerMinute / 60_000,
        updatedAt: now,
      };
      if (this.#buckets.size >= PRUNE_AT) this.#prune(now);
      this.#buckets.set(toolId, bucket);
    } else {
      this.#refill(bucket, now);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ALLOWED;
    }
    return {
      allowed: false,
      retryAfterMs: Math.max(1, Math.ceil((1 - bucket.tokens) / bucket.refillPerMs)),
    };
  }

  /**
   * Gives back a token taken by {@link tryAcquire} for a call that did not run after all (another
   * quota refused it), so that a refused call does not use up this quota.
   */
  giveBack(toolId: string): void {
    const bucket = this.#buckets.get(toolId);
    if (bucket) bucket.tokens = Math.min(bucket.capacity, bucket.tokens + 1);
  }

  /** Every bucket's state, sorted by key (tool id). */
  snapshot(): RateLimiterState[] {
    const now = this.#clock.now();
    return [...this.#buckets.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([toolId, bucket]) => {
        this.#refill(bucket, now);
        return {
          toolId,
          ratePerMinute: bucket.capacity,
          tokens: Math.round(bucket.tokens * 1000) / 1000,
        };
      });
  }

  /** Forgets every bucket. */
  reset(): void {
    this.#buckets.clear();
  }

  /** Forgets full buckets: one per caller and tool would otherwise pile up. */
  #prune(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      this.#refill(bucket, now);
      if (bucket.tokens >= bucket.capacity) this.#buckets.delete(key);
    }
  }

  #refill(bucket: Bucket, now: number): void {
    const elapsed = now - bucket.updatedAt;
    if (elapsed > 0) {
      bucket.tokens = Math.min(bucket.capacity, bucket.tokens + elapsed * bucket.refillPerMs);
      bucket.updatedAt = now;
    }
  }
}
