import { hasEventSink, type ToolContext } from '@toolsys/core-tool-registry';
import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import type { McpCallOptions } from './mcp-client.js';

/** One progress update as `onProgress` receives it. */
export type ProgressUpdate = Parameters<NonNullable<McpCallOptions['onProgress']>>[0];

/** Options of {@link ProgressThrottle}. */
export interface ProgressThrottleOptions {
  /** Updates forwarded at once before the rate applies. Default 3. */
  readonly burst?: number;
  /** Time between two forwarded updates once the burst is spent, in ms. Default 250 (4 a second). */
  readonly intervalMs?: number;
}

/**
 * Coalesces a remote tool's progress: at most `burst` updates at once, then one every
 * `intervalMs`, the latest winning (the updates in between are dropped, never queued). A server
 * that sends 100 000 notifications during one call makes a handful reach the caller, so neither
 * the host's memory nor its output to its own client grows with what the server sends.
 * {@link close} when the call ends: a pending update is then dropped and no timer is left.
 */
export class ProgressThrottle {
  readonly #forward: (update: ProgressUpdate) => void;
  readonly #burst: number;
  readonly #intervalMs: number;
  #tokens: number;
  #refilledAt = performance.now();
  #pending: ProgressUpdate | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(forward: (update: ProgressUpdate) => void, options: ProgressThrottleOptions = {}) {
    this.#forward = forward;
    this.#burst = options.burst ?? 3;
    this.#intervalMs = options.intervalMs ?? 250;
    this.#tokens = this.#burst;
  }

  /** Takes one update: forwarded now when the rate allows, else kept as the latest. */
  readonly push = (update: ProgressUpdate): void => {
    if (this.#closed) return;
    this.#refill();
    if (this.#tokens >= 1 && this.#timer === undefined) {
      this.#tokens -= 1;
      this.#send(update);
      return;
    }
    this.#pending = update;
    if (this.#timer === undefined) {
      const waitMs = Math.max(0, (1 - this.#tokens) * this.#intervalMs);
      this.#timer = setTimeout(this.#release, waitMs);
      this.#timer.unref?.();
    }
  };

  /** Stops forwarding: a pending update is dropped. */
  close(): void {
    this.#closed = true;
    this.#pending = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #release = (): void => {
    this.#timer = undefined;
    const update = this.#pending;
    this.#pending = undefined;
    if (this.#closed || update === undefined) return;
    this.#refill();
    this.#tokens = Math.max(0, this.#tokens - 1);
    this.#send(update);
  };

  #refill(): void {
    const now = performance.now();
    this.#tokens = Math.min(
      this.#burst,
      this.#tokens + (now - this.#refilledAt) / this.#intervalMs,
    );
    this.#refilledAt = now;
  }

  #send(update: ProgressUpdate): void {
    try {
      this.#forward(update);
    } catch {
      // A failing progress sink must not fail the call.
    }
  }
}

/**
 * Forwards a remote tool's progress notifications to the call's event sink, coalesced by a
 * {@link ProgressThrottle} (close it when the call ends).
 */
export function progressEmitter(context: ToolContext): ProgressThrottle {
  return new ProgressThrottle((progress) =>
    context.emit({
      type: 'progress',
      ...progress,
      // The message is the server's text: one clean line, never a forged line of its own.
      ...(progress.message === undefined ? {} : { message: cleanUntrustedLine(progress.message) }),
    }),
  );
}

/**
 * A progress notification's params as `onProgress` receives them: `progress`, with `total` and
 * `message` when the server sent them; undefined when `progress` is not a number. A message is
 * cut to 500 characters.
 */
export function progressUpdate(params: {
  progress?: unknown;
  total?: unknown;
  message?: unknown;
}): ProgressUpdate | undefined {
  if (typeof params.progress !== 'number' || !Number.isFinite(params.progress)) return undefined;
  return {
    progress: params.progress,
    ...(typeof params.total === 'number' && Number.isFinite(params.total)
      ? { total: params.total }
      : {}),
    ...(typeof params.message === 'string' ? { message: params.message.slice(0, 500) } : {}),
  };
}

/**
 * Runs `call` with the remote tool's progress forwarded to the call's event sink, when it has one:
 * a progress token makes the server and the SDK do extra work on every call, so none is asked for
 * otherwise. The throttle is closed when the call settles, whatever the outcome.
 */
export function callWithProgress<T>(
  context: ToolContext,
  options: McpCallOptions,
  call: (options: McpCallOptions) => Promise<T>,
): Promise<T> {
  if (!hasEventSink(context)) return call(options);
  const throttle = progressEmitter(context);
  return call({ ...options, onProgress: throttle.push }).finally(() => throttle.close());
}
