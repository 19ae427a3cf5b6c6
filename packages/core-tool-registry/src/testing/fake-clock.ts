import type { TimerHandle, ToolClock } from '../contract/clock.js';

interface PendingTimer {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

/** Options for {@link FakeClock}. */
export interface FakeClockOptions {
  /** The starting time in ms. Default 0. */
  start?: number;
}

/**
 * A deterministic clock and scheduler for tests: time moves only when the test advances it, and
 * timers fire in due order. Inject it wherever a {@link ToolClock} is accepted.
 */
export class FakeClock implements ToolClock {
  #now: number;
  #nextId = 1;
  #timers: PendingTimer[] = [];

  constructor(options: FakeClockOptions = {}) {
    this.#now = options.start ?? 0;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.#nextId++, due: this.#now + Math.max(0, delayMs), callback };
    this.#timers.push(timer);
    this.#timers.sort((a, b) => a.due - b.due || a.id - b.id);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((timer) => timer.id !== handle);
  }

  /** Number of timers not fired yet. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward synchronously, firing due timers in order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (let next = this.#takeDue(target); next; next = this.#takeDue(target)) next.callback();
    this.#now = target;
  }

  /**
   * Moves time forward, letting promises settle before and after each timer, so async code that
   * awaits timers (backoff, timeouts) runs as it would in real time.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.#now + ms;
    await flushMicrotasks();
    for (let next = this.#takeDue(target); next; next = this.#takeDue(target)) {
      next.callback();
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  /** Removes the first timer due by `target` and moves the time to it; undefined when none is. */
  #takeDue(target: number): PendingTimer | undefined {
    const next = this.#timers[0];
    if (!next || next.due > target) return undefined;
    this.#timers.shift();
    this.#now = next.due;
    return next;
  }

  /** Fires every pending timer (and any they schedule), settling promises in between. */
  async runAllAsync(limit = 1_000): Promise<void> {
    await flushMicrotasks();
    for (let fired = 0; fired < limit; fired += 1) {
      const next = this.#timers.shift();
      if (!next) return;
      this.#now = Math.max(this.#now, next.due);
      next.callback();
      await flushMicrotasks();
    }
    throw new Error(`FakeClock.runAllAsync: more than ${limit} timers fired; is a timer looping?`);
  }
}

/** Lets pending promise callbacks run (a macrotask turn; no time passes on any clock). */
export async function flushMicrotasks(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** A deterministic `Math.random` replacement: returns the given values in turn, cycling. */
export function sequenceRandom(values: readonly number[]): () => number {
  let index = 0;
  return () => {
    const value = values[index % values.length] ?? 0;
    index += 1;
    return value;
  };
}
