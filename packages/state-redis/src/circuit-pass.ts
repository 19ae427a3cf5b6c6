/**
 * Calls whose shared breaker was already checked by the rate limiter's script: the token bucket
 * script also reads whether the tool's circuit exists, and when it does not (the common case: no
 * replica has recorded an infrastructure failure of the tool), the breaker check that follows the
 * admission needs no second round trip. A pass answers for the state Redis had when the limiter's
 * script ran, as if the breaker had been checked in the same script.
 *
 * A pass lives only until the end of the event-loop turn it was granted in: the executor checks
 * the breaker in the same chain of microtasks that receives the limiter's decision, so a pass is
 * taken at once or never (a retry, a limiter used without a breaker), and an old one can never
 * stand for a later call.
 */
export class CircuitPasses {
  readonly #passes = new Map<string, number>();
  readonly #drops = new Map<string, number>();
  #clearing = false;

  /**
   * How many times a failure of `toolId` was recorded here: a limiter that saw the circuit absent
   * notes this count, and its knowledge holds only while the count has not moved.
   */
  drops(toolId: string): number {
    return this.#drops.get(toolId) ?? 0;
  }

  /** Notes that the shared circuit of `toolId` did not exist when one call was admitted. */
  grant(toolId: string): void {
    this.#passes.set(toolId, (this.#passes.get(toolId) ?? 0) + 1);
    if (this.#clearing) return;
    this.#clearing = true;
    setImmediate(() => {
      this.#clearing = false;
      this.#passes.clear();
    });
  }

  /** Takes one pass of `toolId`; false when there is none (the breaker then asks Redis). */
  take(toolId: string): boolean {
    const count = this.#passes.get(toolId);
    if (count === undefined) return false;
    if (count <= 1) this.#passes.delete(toolId);
    else this.#passes.set(toolId, count - 1);
    return true;
  }

  /** Drops every pass of `toolId` (a failure of it was recorded since). */
  drop(toolId: string): void {
    this.#passes.delete(toolId);
    this.#drops.set(toolId, this.drops(toolId) + 1);
  }
}
