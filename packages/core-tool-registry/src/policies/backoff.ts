/**
 * AWS "full jitter" backoff: the wait before retry number `attempt` (1 for the first retry) is
 * `random(0 .. min(maxMs, baseMs * 2^attempt))`, so recovering backends are not hit in lockstep.
 */
export function fullJitterBackoff(
  attempt: number,
  options: {
    /** Base delay in ms. */
    baseMs: number;
    /** Upper bound of one wait in ms. */
    maxMs: number;
    /** Random source in [0, 1). Default `Math.random`. */
    random?: () => number;
  },
): number {
  const { baseMs, maxMs, random = Math.random } = options;
  if (baseMs <= 0 || maxMs <= 0) return 0;
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}
