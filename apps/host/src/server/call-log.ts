/** One call served by the host, as the dashboard shows it. Never holds argument values. */
export interface ServedCall {
  /** The executor's call id. */
  readonly callId: string;
  readonly toolId: string;
  /** Where the call came from. */
  readonly source: 'mcp' | 'dashboard';
  /**
   * A short digest of the session the call belongs to: tells a person which calls share a session
   * without showing the id, which would let its reader act as that session.
   */
  readonly session: string;
  /** Who called (`principalKey`: `token:alice`, `oauth:<sub>`, `local:local`). */
  readonly principal: string;
  /** `ok`, or the failure code. */
  readonly outcome: string;
  /** Wall-clock duration in ms. */
  readonly durationMs: number;
  /** When the call finished (ms since the epoch). */
  readonly at: number;
}

/** Options for {@link CallLog}. */
export interface CallLogOptions {
  /** Calls kept; the oldest are dropped first. Default 300. */
  capacity?: number;
}

/** A bounded log of the calls a server handled, with listeners for live views. */
export class CallLog {
  readonly #capacity: number;
  readonly #calls: ServedCall[] = [];
  readonly #listeners = new Set<(call: ServedCall) => void>();

  constructor(options: CallLogOptions = {}) {
    this.#capacity = Math.max(1, options.capacity ?? 300);
  }

  /** Appends a finished call and tells the listeners. */
  record(call: ServedCall): void {
    this.#calls.push(call);
    if (this.#calls.length > this.#capacity) this.#calls.shift();
    for (const listener of this.#listeners) {
      try {
        listener(call);
      } catch {
        // A failing listener must not fail the call.
      }
    }
  }

  /** The most recent calls, newest last. */
  recent(limit = this.#capacity): ServedCall[] {
    return this.#calls.slice(-Math.max(0, limit));
  }

  /** Subscribes to new calls; returns the unsubscribe function. */
  subscribe(listener: (call: ServedCall) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
