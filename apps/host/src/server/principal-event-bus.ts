// The change events of the 2026-07-28 `subscriptions/listen` streams, kept per principal: a
// stream belongs to the principal whose request opened it, and an event about one principal's
// things (a run-time tool it defined, a resource it watches) reaches only that principal's streams.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';

const requestOwner = new AsyncLocalStorage<string>();

/** Runs `work` as a request of the principal `owner` (its `principalKey`). */
export function runAsOwner<T>(owner: string, work: () => T): T {
  return requestOwner.run(owner, work);
}

/**
 * A {@link ServerEventBus} whose listeners (the SDK's listen streams) are tagged with the
 * principal of the request that registered them (see {@link runAsOwner}). `publish` reaches every
 * stream; `publishTo` only those of one principal.
 */
export class PrincipalEventBus implements ServerEventBus {
  readonly #listeners = new Map<(event: ServerEvent) => void, string | undefined>();

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.#listeners.set(listener, requestOwner.getStore());
    return () => {
      this.#listeners.delete(listener);
    };
  }

  publish(event: ServerEvent): void {
    this.#deliver(event, () => true);
  }

  /** Publishes `event` to the streams of the principal `owner` only. */
  publishTo(owner: string, event: ServerEvent): void {
    this.#deliver(event, (listenerOwner) => listenerOwner === owner);
  }

  #deliver(event: ServerEvent, reaches: (owner: string | undefined) => boolean): void {
    for (const [listener, owner] of [...this.#listeners]) {
      if (!reaches(owner)) continue;
      try {
        listener(event);
      } catch {
        // One stream's failure is its own.
      }
    }
  }
}
