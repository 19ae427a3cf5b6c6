import { randomBytes } from 'node:crypto';

/** Generates call ids: unique, sortable by creation within a process, safe to log. */
export class ToolCallIds {
  readonly #prefix = randomBytes(3).toString('hex');
  #counter = 0;

  /** The next call id, e.g. `call_a1b2c3_1`. */
  next(): string {
    this.#counter += 1;
    return `call_${this.#prefix}_${this.#counter.toString(36)}`;
  }
}
