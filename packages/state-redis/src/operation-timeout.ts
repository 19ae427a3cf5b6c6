/** Options for {@link OperationTimeout}. */
export interface OperationTimeoutOptions {
  /** A fixed bound in ms instead of one chosen from measurements (1 to 5000). */
  fixedMs?: number;
  /** Round trips kept for the percentile. Default 512. */
  window?: number;
}

/** The bound before any round trip was measured, and the least bound ever chosen, in ms. */
export const MIN_OPERATION_TIMEOUT_MS = 300;
/** The largest bound ever chosen, in ms: past it a call stops waiting for Redis. */
export const MAX_OPERATION_TIMEOUT_MS = 1000;
/** The bound is this many times the 99th percentile of the recent round trips. */
export const OPERATION_TIMEOUT_FACTOR = 4;

/**
 * The bound of one Redis operation, chosen from the round trips this replica measured rather than
 * guessed: `max(300 ms, 4 × p99 of the last 512 round trips)`, at most 1000 ms.
 *
 * Why these numbers: one script call (the token bucket) measured on a 2-core machine, 4 calls in
 * flight, 8 s each (`node measure`, redis-server 7.0 on loopback): quiet p50 0.2–3 ms, p99
 * 50–100 ms; with every core saturated by other processes (load average 5 to 78) p50 0.2 ms, p99
 * 50–100 ms, p99.9 300–600 ms, max 830 ms. The old fixed 100 ms bound sat at the p99: about one
 * call in a hundred missed Redis on a busy machine, exactly when limits matter. 4 × p99 follows a
 * slower machine up; the 300 ms floor keeps a quiet period from shrinking the bound below the
 * loaded p99.9; the 1000 ms cap keeps a frozen Redis from stalling a call longer than a second
 * (then the replica runs on its fair share of local state, see RedisRateLimiter).
 */
export class OperationTimeout {
  readonly #fixedMs: number | undefined;
  readonly #samples: Float64Array;
  #count = 0;
  #next = 0;
  #cachedMs = MIN_OPERATION_TIMEOUT_MS;
  #dirty = 0;
  #misses = 0;

  constructor(options: OperationTimeoutOptions = {}) {
    this.#fixedMs =
      options.fixedMs === undefined
        ? undefined
        : Math.min(5000, Math.max(1, Math.round(options.fixedMs)));
    this.#samples = new Float64Array(Math.max(16, options.window ?? 512));
  }

  /** Whether the bound was configured rather than measured. */
  get isFixed(): boolean {
    return this.#fixedMs !== undefined;
  }

  /** The largest bound this may return, in ms. */
  get maxMs(): number {
    return this.#fixedMs ?? MAX_OPERATION_TIMEOUT_MS;
  }

  /** Operations that ran past their bound so far. */
  get misses(): number {
    return this.#misses;
  }

  /** Records the round trip of an operation that answered (in time or late), in ms. */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.#samples.length;
    this.#count = Math.min(this.#count + 1, this.#samples.length);
    this.#dirty += 1;
  }

  /** Counts an operation that ran past its bound. */
  recordMiss(): void {
    this.#misses += 1;
  }

  /** The bound for the next operation, in ms. */
  currentMs(): number {
    if (this.#fixedMs !== undefined) return this.#fixedMs;
    // Re-sorting the window every 32 samples keeps the per-call cost negligible.
    if (this.#dirty >= 32 || (this.#dirty > 0 && this.#count < 32)) {
      this.#dirty = 0;
      const sorted = Array.from(this.#samples.subarray(0, this.#count)).sort((a, b) => a - b);
      const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
      this.#cachedMs = Math.min(
        MAX_OPERATION_TIMEOUT_MS,
        Math.max(MIN_OPERATION_TIMEOUT_MS, Math.ceil(OPERATION_TIMEOUT_FACTOR * p99)),
      );
    }
    return this.#cachedMs;
  }
}
