/** A handle returned by {@link ToolClock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * Time as the run policies see it: the current time and a one-shot timer. Injected so that the
 * breaker, limiter, backoff and timeout logic run on a fake clock in tests (no real sleeps).
 */
export interface ToolClock {
  /** Milliseconds on a monotonic scale (only differences matter). */
  now(): number;
  /** Calls `callback` once after `delayMs`; returns a handle for {@link ToolClock.clearTimeout}. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `performance.now()` and Node timers (unref'd so they never keep a process alive). */
export const SYSTEM_CLOCK: ToolClock = {
  now: () => performance.now(),
  setTimeout(callback, delayMs) {
    const timer = setTimeout(callback, delayMs);
    timer.unref?.();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/**
 * Waits `delayMs` on a clock; resolves early (to `false`) when the signal aborts. Someone awaits
 * this wait (a retry's back-off), so on the system clock it keeps the process alive: a script whose
 * only pending work is a call waiting to retry must not exit in the middle of it.
 */
export function sleep(clock: ToolClock, delayMs: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (delayMs <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      resolve(false);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, delayMs);
    if (clock === SYSTEM_CLOCK) (handle as ReturnType<typeof setTimeout>).ref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
