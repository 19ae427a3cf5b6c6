import { SYSTEM_CLOCK, type TimerHandle, type ToolClock } from '../contract/clock.js';

/** Something with a deadline (on the watch's clock) that is told when the deadline passes. */
export interface Deadlined {
  readonly deadline: number;
  expire(): void;
}

/**
 * Expires each watched item when its deadline passes, on one clock timer for all of them.
 *
 * A timer per call costs a timer-list insert and removal on every call, often with a native call
 * to re-schedule the loop's timer. Here a call that ends in time only joins and leaves a set: the
 * one timer is armed for the earliest deadline known, is left armed when that call ends early,
 * and when it fires it expires what is due and re-arms for the earliest deadline remaining.
 *
 * The timer is left armed with nothing to watch only on the system clock, whose timers never keep
 * the process alive; on any other clock it is cleared as soon as the last item leaves, so a
 * clock with ordinary timers cannot hold a finished process open.
 */
export class DeadlineWatch {
  readonly #clock: ToolClock;
  readonly #items = new Set<Deadlined>();
  #timer: TimerHandle | undefined;
  #armedFor = Number.POSITIVE_INFINITY;
  /** Whether an idle armed timer is harmless (see the class comment). */
  readonly #keepArmed: boolean;

  constructor(clock: ToolClock) {
    this.#clock = clock;
    this.#keepArmed = clock === SYSTEM_CLOCK;
  }

  /** How many items are watched. */
  get size(): number {
    return this.#items.size;
  }

  /** Starts watching; `expire` is called once the deadline has passed, unless unwatched before. */
  watch(item: Deadlined): void {
    this.#items.add(item);
    if (item.deadline < this.#armedFor) this.#arm(item.deadline);
  }

  /** Stops watching (an item that is not watched is ignored). */
  unwatch(item: Deadlined): void {
    this.#items.delete(item);
    if (this.#items.size === 0 && !this.#keepArmed && this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedFor = Number.POSITIVE_INFINITY;
    }
  }

  #arm(deadline: number): void {
    const clock = this.#clock;
    if (this.#timer !== undefined) clock.clearTimeout(this.#timer);
    this.#armedFor = deadline;
    this.#timer = clock.setTimeout(() => this.#fire(), Math.max(0, deadline - clock.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    const due: Deadlined[] = [];
    for (const item of this.#items) if (item.deadline <= now) due.push(item);
    for (const item of due) {
      this.#items.delete(item);
      try {
        item.expire();
      } catch {
        // One item's failure must not keep the others from expiring.
      }
    }
    // Re-armed for the earliest remaining deadline (an item added by an expiry may have armed it).
    let next = Number.POSITIVE_INFINITY;
    for (const item of this.#items) if (item.deadline < next) next = item.deadline;
    if (next < this.#armedFor) this.#arm(next);
  }
}
