/** One cached GET response, replayed when GitHub answers 304 Not Modified. */
export interface CachedResponse {
  /** The response's ETag (or Last-Modified), sent back as `If-None-Match`. */
  readonly etag: string;
  /** The response as Octokit returned it. */
  readonly response: {
    status: number;
    url: string;
    headers: Record<string, unknown>;
    data: unknown;
  };
}

/**
 * A small least-recently-used cache of GET responses by request key, for conditional requests:
 * GitHub does not count a 304 answer against the primary rate limit.
 */
export class EtagCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #capacity: number;

  /** @param capacity Most responses kept (default 100); the least recently used goes first. */
  constructor(capacity = 100) {
    this.#capacity = Math.max(1, capacity);
  }

  /** The cached response for a key, marked as recently used. */
  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Stores a response, evicting the least recently used past capacity. */
  set(key: string, entry: CachedResponse): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /** How many responses are cached. */
  get size(): number {
    return this.#entries.size;
  }
}
