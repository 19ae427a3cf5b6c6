// Noticing a sign-in that completes elsewhere (`toolsys mcp login` in another process, the
// dashboard): a server that asked for one is watched until a token is stored, then reached again
// at once, so its tools appear (and clients hear `tools/list_changed`).
import type { OAuthCredentialStore } from './oauth-store.js';

/** Watches stores of servers waiting for a sign-in. */
export class SignInWatch {
  readonly #timers = new Map<string, ReturnType<typeof setInterval>>();
  readonly #intervalMs: number;

  /** `intervalMs`: how often a waiting store is read. Default 2 000. */
  constructor(intervalMs = 2_000) {
    this.#intervalMs = intervalMs;
  }

  /**
   * Reads `store` every interval until it holds a token, then calls `signedIn` once. Watching the
   * same `key` twice is one watch.
   */
  watch(key: string, store: OAuthCredentialStore, signedIn: () => void): void {
    if (this.#timers.has(key)) return;
    let reading = false;
    const timer = setInterval(() => {
      if (reading) return;
      reading = true;
      store
        .load()
        .then((credentials) => {
          if (credentials.tokens === undefined || this.#timers.get(key) !== timer) return;
          this.#stop(key);
          signedIn();
        })
        .catch(() => undefined)
        .finally(() => {
          reading = false;
        });
    }, this.#intervalMs);
    timer.unref?.();
    this.#timers.set(key, timer);
  }

  /** Stops every watch. */
  close(): void {
    for (const key of [...this.#timers.keys()]) this.#stop(key);
  }

  #stop(key: string): void {
    clearInterval(this.#timers.get(key));
    this.#timers.delete(key);
  }
}
