/**
 * Work on a large page (normalising a tree of 200,000 nodes, listing and searching its lines)
 * runs as steps that pause now and then, so the event loop stays free for other sessions: a
 * step function is a generator that yields when its {@link Pace} says a slice of work is spent.
 * Driven with {@link runSteps} it runs in one go (tests, small pages); with
 * {@link runStepsAsync} it gives the event loop a turn between slices.
 */
export type Steps<T> = Generator<void, T, void>;

/** Work done before the event loop gets a turn, in ms. */
const SLICE_MS = 12;
/** Nodes between two looks at the clock. */
const CHECK_EVERY = 16;

/** Says when a slice of work is spent. */
export class Pace {
  #count = 0;
  #sliceEnd: number;
  readonly #sliceMs: number;

  constructor(sliceMs = SLICE_MS) {
    this.#sliceMs = sliceMs;
    this.#sliceEnd = performance.now() + sliceMs;
  }

  /** Whether the work should yield now (true at most once per slice). */
  due(): boolean {
    this.#count += 1;
    if (this.#count % CHECK_EVERY !== 0) return false;
    return performance.now() >= this.#sliceEnd;
  }

  /** Starts a new slice (after the event loop had its turn). */
  restart(): void {
    this.#sliceEnd = performance.now() + this.#sliceMs;
  }
}

/** A pace that never pauses: the steps run in one go. */
export const NO_PAUSE: Pace = new (class extends Pace {
  override due(): boolean {
    return false;
  }
})();

/** Runs steps to the end in one go. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs steps, giving the event loop a turn each time they yield; stops with the signal's reason
 * once it is aborted.
 */
export async function runStepsAsync<T>(
  steps: Steps<T>,
  pace: Pace,
  signal?: AbortSignal,
): Promise<T> {
  signal?.throwIfAborted();
  pace.restart();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    pace.restart();
  }
}

/**
 * Calls `visit` on each item in slices, giving the event loop a turn between them; stops with
 * the signal's reason once it is aborted.
 */
export async function forEachInSlices<T>(
  items: Iterable<T>,
  visit: (item: T) => void,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  const pace = new Pace();
  for (const item of items) {
    if (pace.due()) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      pace.restart();
    }
    visit(item);
  }
}
