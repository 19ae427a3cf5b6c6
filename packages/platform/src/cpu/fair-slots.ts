import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

/** Options for {@link FairSlots}. */
export interface FairSlotsOptions {
  /** Slots (worker threads) shared by all callers. */
  readonly slots: number;
  /** Slots one caller holds at most at once. Default: half the slots, at least 1. */
  readonly perCaller?: number;
  /** Calls one caller may have waiting. Default 16. */
  readonly queuedPerCaller?: number;
  /** Calls all callers together may have waiting. Default 256. */
  readonly queuedTotal?: number;
}

interface Waiter {
  readonly grant: () => void;
  readonly caller: string;
}

/**
 * Shares a few slots (the CPU pool's threads) fairly between callers (sessions): each caller holds
 * at most `perCaller` slots at once, waiting calls are kept per caller and served round-robin
 * (one caller's backlog never delays another caller's next call by more than one turn), and the
 * waiting lists are bounded; a call past them is refused at once as RATE_LIMITED (busy).
 */
export class FairSlots {
  readonly #slots: number;
  readonly #perCaller: number;
  readonly #queuedPerCaller: number;
  readonly #queuedTotal: number;
  readonly #running = new Map<string, number>();
  /** Waiting calls by caller, in the order callers are served (round-robin). */
  readonly #queues = new Map<string, Waiter[]>();
  #busy = 0;
  #queued = 0;

  constructor(options: FairSlotsOptions) {
    this.#slots = Math.max(1, options.slots);
    this.#perCaller = Math.max(1, options.perCaller ?? Math.floor(this.#slots / 2));
    this.#queuedPerCaller = options.queuedPerCaller ?? 16;
    this.#queuedTotal = options.queuedTotal ?? 256;
  }

  /** Slots in use now. */
  get busy(): number {
    return this.#busy;
  }

  /** Calls waiting now. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Waits for a slot for `caller` and returns the function that gives it back (call it once).
   * Rejects with the signal's reason when it fires while waiting, and with RATE_LIMITED when the
   * waiting lists are full.
   */
  acquire(caller: string, toolId: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    if (this.#canRun(caller)) return Promise.resolve(this.#take(caller));
    const queue = this.#queues.get(caller) ?? [];
    if (queue.length >= this.#queuedPerCaller || this.#queued >= this.#queuedTotal) {
      const own = queue.length >= this.#queuedPerCaller;
      return Promise.reject(
        new ToolError(
          ToolErrorCode.RATE_LIMITED,
          own
            ? `${toolId}: this session already has ${this.#perCaller} computation(s) running and ${queue.length} waiting`
            : `${toolId}: the computation workers are busy (${this.#queued} calls waiting)`,
          {
            retryAfterMs: 1_000,
            hint: own
              ? 'Wait for your earlier calls to finish (or make them smaller), then retry.'
              : 'Retry after a moment.',
          },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        caller,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.#take(caller));
        },
      };
      const onAbort = () => {
        const list = this.#queues.get(caller);
        const index = list?.indexOf(waiter) ?? -1;
        if (list && index !== -1) {
          list.splice(index, 1);
          this.#queued -= 1;
          if (list.length === 0) this.#queues.delete(caller);
        }
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.#queues.set(caller, queue);
      this.#queued += 1;
    });
  }

  #canRun(caller: string): boolean {
    return this.#busy < this.#slots && (this.#running.get(caller) ?? 0) < this.#perCaller;
  }

  #take(caller: string): () => void {
    this.#busy += 1;
    this.#running.set(caller, (this.#running.get(caller) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy -= 1;
      const left = (this.#running.get(caller) ?? 1) - 1;
      if (left === 0) this.#running.delete(caller);
      else this.#running.set(caller, left);
      this.#dispatch();
    };
  }

  /** Grants free slots to waiting callers in round-robin order. */
  #dispatch(): void {
    let progressed = true;
    while (this.#busy < this.#slots && this.#queued > 0 && progressed) {
      progressed = false;
      for (const [caller, queue] of this.#queues) {
        if (!this.#canRun(caller)) continue;
        const waiter = queue.shift();
        if (!waiter) continue;
        this.#queued -= 1;
        // The caller served goes to the back of the round.
        this.#queues.delete(caller);
        if (queue.length > 0) this.#queues.set(caller, queue);
        waiter.grant();
        progressed = true;
        break;
      }
    }
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new Error('The call was cancelled by the caller.');
}
