/** Options for {@link RecentCaptures}: how to read a capture, and the bounds of the store. */
export interface RecentCapturesOptions<Capture> {
  /** The token of a capture (a hash of its content): {@link RecentCaptures.find} looks it up. */
  readonly tokenOf: (capture: Capture) => string;
  /**
   * What makes a capture kept again the same as one kept before under its key: the one before is
   * dropped and the new one becomes the newest. Default: its token.
   */
  readonly identityOf?: (capture: Capture) => string;
  /** The size of a capture (such as its lines), counted against `maxSize`. Default 1 each. */
  readonly sizeOf?: (capture: Capture) => number;
  /** Captures kept per key, newest first; the oldest of the key goes first. Default 4, at least 1. */
  readonly perKey?: number;
  /** Keys kept; the key used longest ago is dropped first, with its captures. Default 8, at least 1. */
  readonly keys?: number;
  /**
   * Most size kept over all captures: past it the oldest captures of the key used longest ago go
   * first, never the capture just kept; a capture larger than this is not kept at all. Default no
   * bound, at least 1.
   */
  readonly maxSize?: number;
}

/**
 * The latest captures per key (a tab, a device), newest first, in memory and bounded per key, in
 * number of keys and in total size: what a paging cursor came from, to compare with a capture read
 * now. Keeping a capture makes its key the one used most recently.
 */
export class RecentCaptures<Capture> {
  readonly #tokenOf: (capture: Capture) => string;
  readonly #identityOf: (capture: Capture) => string;
  readonly #sizeOf: (capture: Capture) => number;
  readonly #perKey: number;
  readonly #keys: number;
  readonly #maxSize: number;
  /** Per key, newest first; the map's order is the keys' order of use, longest ago first. */
  readonly #captures = new Map<string, Capture[]>();

  constructor(options: RecentCapturesOptions<Capture>) {
    this.#tokenOf = options.tokenOf;
    this.#identityOf = options.identityOf ?? options.tokenOf;
    this.#sizeOf = options.sizeOf ?? (() => 1);
    this.#perKey = Math.max(1, options.perKey ?? 4);
    this.#keys = Math.max(1, options.keys ?? 8);
    this.#maxSize = Math.max(1, options.maxSize ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Keeps a capture as the newest of its key, dropping the oldest past the bounds. Returns false,
   * changing nothing, when the capture alone is larger than `maxSize`.
   */
  keep(key: string, capture: Capture): boolean {
    if (this.#sizeOf(capture) > this.#maxSize) return false;
    const identity = this.#identityOf(capture);
    const kept = (this.#captures.get(key) ?? []).filter(
      (entry) => this.#identityOf(entry) !== identity,
    );
    kept.unshift(capture);
    kept.length = Math.min(kept.length, this.#perKey);
    this.#captures.delete(key);
    this.#captures.set(key, kept);
    for (const oldest of this.#captures.keys()) {
      if (this.#captures.size <= this.#keys) break;
      this.#captures.delete(oldest);
    }
    this.#trim(capture);
    return true;
  }

  /** The newest capture of a key with this token, if still kept. */
  find(key: string, token: string): Capture | undefined {
    return this.#captures.get(key)?.find((entry) => this.#tokenOf(entry) === token);
  }

  /** The newest capture of a key that matches (default: any), if any. */
  latest(key: string, matches: (capture: Capture) => boolean = () => true): Capture | undefined {
    return this.#captures.get(key)?.find(matches);
  }

  /** Size kept over all captures, as `sizeOf` counts it. */
  get size(): number {
    let size = 0;
    for (const captures of this.#captures.values()) {
      for (const capture of captures) size += this.#sizeOf(capture);
    }
    return size;
  }

  /** Drops the oldest captures (key used longest ago first) until the size fits. */
  #trim(newest: Capture): void {
    let size = this.size;
    for (const [key, captures] of this.#captures) {
      while (size > this.#maxSize && captures.length > 0) {
        if (captures.at(-1) === newest) return;
        size -= this.#sizeOf(captures.pop() as Capture);
      }
      if (captures.length === 0) this.#captures.delete(key);
      if (size <= this.#maxSize) return;
    }
  }
}
