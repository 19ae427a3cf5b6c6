/** Below this many requests left, a listing warns the model to spend its calls carefully. */
const LOW_RATE_LIMIT = 100;

/** The primary rate-limit budget GitHub reports on an answer. */
export interface RateLimitInfo {
  /** Requests left in this window. */
  remaining: number;
  /** Requests allowed per window. */
  limit: number;
  /** When the window resets, ISO 8601. */
  resetAt: string;
}

/**
 * The rate-limit budget from an answer's `x-ratelimit-*` headers, or undefined when they are
 * missing or malformed.
 */
export function readRateLimit(headers: Record<string, unknown>): RateLimitInfo | undefined {
  const remaining = Number(headers['x-ratelimit-remaining']);
  const limit = Number(headers['x-ratelimit-limit']);
  const reset = Number(headers['x-ratelimit-reset']);
  if (
    ![remaining, limit, reset].every(Number.isSafeInteger) ||
    reset < 0 ||
    reset > 1e11 ||
    headers['x-ratelimit-remaining'] === undefined
  ) {
    return undefined;
  }
  return { remaining, limit, resetAt: new Date(reset * 1000).toISOString() };
}

/** A line warning of a low budget, or nothing while enough requests are left. */
export function rateLimitNote(rate: RateLimitInfo | undefined): string {
  if (!rate || rate.remaining >= LOW_RATE_LIMIT) return '';
  return `\nGitHub rate limit low: ${rate.remaining} of ${rate.limit} requests left until ${rate.resetAt}; make only the calls you need.`;
}
