import { expect } from 'vitest';

/** What {@link whilePinging} saw. */
export interface Responsiveness<T> {
  /** What the work returned. */
  readonly result: T;
  /** The usual time of one ping before the work started: the median of several, in ms. */
  readonly usualMs: number;
  /**
   * The slowest ping while the work ran (one still waiting at the end counts until it answers; a
   * pause between pings that ended late counts as a ping that late), in ms.
   */
  readonly worstMs: number;
  /** Pings answered while the work ran. */
  readonly pings: number;
}

/** Options of {@link whilePinging}. */
export interface WhilePingingOptions {
  /** Pause between one ping's answer and the next ping, in ms. Default 20. */
  readonly intervalMs?: number;
  /** Pings timed before the work starts, for the usual time. Default 7. */
  readonly warmups?: number;
}

/**
 * Runs `work` while another session pings the server (`ping`, e.g. a `get_time` call from a
 * second MCP session) one after another, and reports how slow the pings became. A work that
 * blocks the event loop, or starves the server, shows as a ping far slower than usual.
 */
export async function whilePinging<T>(
  work: () => Promise<T>,
  ping: () => Promise<unknown>,
  options: WhilePingingOptions = {},
): Promise<Responsiveness<T>> {
  const intervalMs = options.intervalMs ?? 20;
  const warmups: number[] = [];
  for (let index = 0; index < (options.warmups ?? 7); index++) warmups.push(await timed(ping));
  warmups.sort((a, b) => a - b);
  const usualMs = warmups[Math.floor(warmups.length / 2)] ?? 0;

  let done = false;
  let worstMs = 0;
  let pings = 0;
  const pinger = (async () => {
    // At least one ping runs while the work runs, however fast the work is.
    do {
      worstMs = Math.max(worstMs, await timed(ping));
      pings += 1;
      if (!done) {
        // Work blocking this process's event loop during the pause shows as a late timer: the
        // next ping would then wait that long, so the lateness counts as a ping's time.
        const paused = await timed(() => new Promise((resolve) => setTimeout(resolve, intervalMs)));
        worstMs = Math.max(worstMs, usualMs + paused - intervalMs);
      }
    } while (!done);
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    done = true;
    await pinger;
  }
  return { result, usualMs, worstMs, pings };
}

/**
 * Runs `work` while pinging and asserts that no ping was more than `slackMs` (default 100) slower
 * than usual. Returns the work's result.
 */
export async function expectResponsiveDuring<T>(
  work: () => Promise<T>,
  ping: () => Promise<unknown>,
  options: WhilePingingOptions & { slackMs?: number } = {},
): Promise<T> {
  const seen = await whilePinging(work, ping, options);
  expect(
    seen.worstMs,
    `a ping took ${Math.round(seen.worstMs)} ms while the work ran (usual ${Math.round(seen.usualMs)} ms)`,
  ).toBeLessThanOrEqual(seen.usualMs + (options.slackMs ?? 100));
  return seen.result;
}

async function timed(ping: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await ping();
  return performance.now() - started;
}
