import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

/**
 * A per-request signal that follows the caller's (and can be aborted on its own). The SDK adds an
 * abort listener to the signal of every request and never removes it, so a long-lived caller
 * signal (a session's) would collect one listener per call; this one is dropped after the
 * request. It is its own abort listener on the source.
 */
export class SignalRelay {
  readonly #source: AbortSignal | undefined;
  readonly #controller = new AbortController();

  /** A relay of `source`, or undefined without one. */
  static of(source: AbortSignal | undefined): SignalRelay | undefined {
    return source ? new SignalRelay(source) : undefined;
  }

  constructor(source: AbortSignal | undefined) {
    this.#source = source;
    if (source?.aborted) this.#controller.abort(source.reason);
    else source?.addEventListener('abort', this, { once: true });
  }

  /** The per-request signal. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Request options carrying the per-request signal. */
  get options(): { signal: AbortSignal } {
    return { signal: this.#controller.signal };
  }

  /** Aborts the per-request signal (the source is left alone). */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  /** The source fired. */
  handleEvent(): void {
    this.#controller.abort(this.#source?.reason);
  }

  /** Detaches from the source. */
  release(): void {
    this.#source?.removeEventListener('abort', this);
  }
}

/**
 * The signal of a connection attempt: follows the caller's, and fires by itself when the
 * attempt's time limit passes (the era probe and the handshake share it). {@link explain} turns
 * what the aborted attempt threw into a timeout when the limit was the reason.
 */
export class HandshakeDeadline {
  readonly #relay: SignalRelay;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #timeout: SdkError;
  #expired = false;

  constructor(source: AbortSignal | undefined, timeoutMs: number) {
    this.#relay = new SignalRelay(source);
    this.#timeout = new SdkError(
      SdkErrorCode.RequestTimeout,
      `Connection not settled within ${timeoutMs} ms`,
      { timeout: timeoutMs },
    );
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.#relay.abort(this.#timeout);
    }, timeoutMs);
    this.#timer.unref?.();
  }

  /** The attempt's signal. */
  get signal(): AbortSignal {
    return this.#relay.signal;
  }

  /** Ends the attempt now. */
  abort(reason: unknown): void {
    this.#relay.abort(reason);
  }

  /** What the attempt failed with: a timeout when the time limit ended it, else `error`. */
  explain(error: unknown): unknown {
    return this.#expired ? this.#timeout : error;
  }

  /** Stops the timer and detaches from the caller's signal. */
  release(): void {
    clearTimeout(this.#timer);
    this.#relay.release();
  }
}
