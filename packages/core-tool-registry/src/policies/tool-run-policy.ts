/** How a tool call is timed, retried and rate-limited. */
export interface ToolRunPolicy {
  /** Preset name, shown in catalogs and traces. */
  readonly name: string;
  /** Hard time limit per attempt in ms; undefined means none (legacy). */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, for retry-safe tools and retryable errors only. */
  readonly maxRetries: number;
  /** Calls allowed per minute; undefined means unlimited. */
  readonly ratePerMinute?: number;
  /** Backoff base in ms: a retry waits `random(0 .. base * 2^attempt)`. */
  readonly backoffBaseMs: number;
  /** Upper bound of a single backoff wait in ms. */
  readonly backoffMaxMs: number;
}

/** The four presets from the design: quickRead, network, mutating and legacy. */
export const RunPolicies = {
  /** Fast local reads: 30 s, 1 retry, 120 calls a minute. */
  quickRead: {
    name: 'quickRead',
    timeoutMs: 30_000,
    maxRetries: 1,
    ratePerMinute: 120,
    backoffBaseMs: 200,
    backoffMaxMs: 2_000,
  },
  /** Remote calls: 90 s, 2 retries, 30 calls a minute. */
  network: {
    name: 'network',
    timeoutMs: 90_000,
    maxRetries: 2,
    ratePerMinute: 30,
    backoffBaseMs: 500,
    backoffMaxMs: 8_000,
  },
  /** Calls that change state: 60 s, never blindly retried, no rate limit. */
  mutating: {
    name: 'mutating',
    timeoutMs: 60_000,
    maxRetries: 0,
    backoffBaseMs: 0,
    backoffMaxMs: 0,
  },
  /** No timeout, no retry, no limit: what a tool without a declared policy gets. */
  legacy: { name: 'legacy', maxRetries: 0, backoffBaseMs: 0, backoffMaxMs: 0 },
} as const satisfies Record<string, ToolRunPolicy>;

/** A preset name. */
export type RunPolicyName = keyof typeof RunPolicies;
