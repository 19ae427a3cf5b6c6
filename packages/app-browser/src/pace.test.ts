import { describe, expect, it } from 'vitest';
import { forEachInSlices, NO_PAUSE, Pace, runSteps, runStepsAsync, type Steps } from './pace.js';

/** Counts to `to`, spending about `busyMs` per 256 counts, yielding when the pace says so. */
function* counting(to: number, pace: Pace, busyMs = 0): Steps<number> {
  let sum = 0;
  for (let index = 1; index <= to; index += 1) {
    if (pace.due()) yield;
    if (busyMs > 0 && index % 256 === 0) {
      const end = performance.now() + busyMs;
      while (performance.now() < end) {}
    }
    sum += index;
  }
  return sum;
}

describe('runStepsAsync', () => {
  it('gives the same result as runSteps', async () => {
    expect(runSteps(counting(10_000, NO_PAUSE))).toBe(50_005_000);
    const pace = new Pace(1);
    await expect(runStepsAsync(counting(10_000, pace, 1), pace)).resolves.toBe(50_005_000);
  });

  it('lets other work run between slices', async () => {
    let turns = 0;
    const timer = setInterval(() => {
      turns += 1;
    }, 0);
    try {
      const pace = new Pace(5);
      // About 40 × 2 ms of work: one go would give the interval no turn.
      await runStepsAsync(counting(256 * 40, pace, 2), pace);
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(2);
  });

  it('stops with the signal reason once aborted', async () => {
    const controller = new AbortController();
    const pace = new Pace(1);
    const run = runStepsAsync(counting(256 * 1_000, pace, 1), pace, controller.signal);
    setTimeout(() => controller.abort(new Error('stopped')), 20);
    await expect(run).rejects.toThrow('stopped');
  });
});

describe('forEachInSlices', () => {
  it('visits every item in order and lets other work run between slices', async () => {
    let turns = 0;
    const timer = setInterval(() => {
      turns += 1;
    }, 0);
    const seen: number[] = [];
    try {
      await forEachInSlices(
        Array.from({ length: 256 * 40 }, (_, index) => index),
        (item) => {
          seen.push(item);
          if (item % 256 === 0) {
            const end = performance.now() + 1;
            while (performance.now() < end) {}
          }
        },
      );
    } finally {
      clearInterval(timer);
    }
    expect(seen).toEqual(Array.from({ length: 256 * 40 }, (_, index) => index));
    expect(turns).toBeGreaterThan(1);
  });
});
