import { randomBytes } from 'node:crypto';

/** Generates call ids: unique, sortable by creation within a process, safe to log. */
export class ToolCallIds {
  readonly #prefix = randomBytes(3).toString('hex');
  #counter = 0;
  #prepared: string | undefined;

  /** The next call id, e.g. `call_a1b2c3_1`. */
  next(): string {
    this.#counter += 1;
    const prepared = this.#prepared;
    this.#prepared = undefined;
    return prepared ?? this.#format(this.#counter);
  }

  /**
   * Makes the next id ahead of time, so that `next` only hands it out. Executors call this while
   * a call's I/O is in flight, which takes the formatting off the next call's critical path.
   */
  prepare(): void {
    this.#prepared ??= this.#format(this.#counter + 1);
  }

  #format(counter: number): string {
    return `call_${this.#prefix}_${counter.toString(36)}`;
  }
}
