/**
 * One attempt of an admitted call: the handler, raced against the call's deadline and the
 * caller's signal, settled into a result without closures of its own.
 */

import type { RegisteredTool } from '../contract/tool.js';
import { ToolError } from '../contract/tool-error.js';
import { cancelledFailure, failureFromThrown, timeoutFailure } from '../contract/tool-failures.js';
import type { ToolResult } from '../contract/tool-result.js';
import type { ToolRunPolicy } from '../policies/tool-run-policy.js';
import { type AttemptContext, type CallState, NEVER_ABORTED } from './attempt-context.js';
import type { Deadlined, DeadlineWatch } from './deadline-watch.js';
import { normaliseReturn } from './execution-steps.js';
import type { OpenSpan } from './trace-recorder.js';

/** Whether a value is a promise (or any thenable) rather than an answer given at once. */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** One call once admitted: what every attempt of it needs. */
export interface CallRun {
  readonly tool: RegisteredTool;
  /** Validated arguments, as the handler gets them. */
  readonly args: unknown;
  /** The arguments as given, for spans and refusals. */
  readonly rawArgs: unknown;
  readonly policy: ToolRunPolicy;
  readonly call: CallState;
  /** When the call started, on the executor's `now` (for the usage tracker). */
  readonly started: number;
  /**
   * The time limit of the call, all attempts and backoffs together (a retry gets what is left);
   * undefined without run policies.
   */
  readonly timeoutMs: number | undefined;
  readonly maxRetries: number;
  /** When the first attempt started: the time limit counts from there. Set by the first attempt. */
  firstStarted?: number;
}

/** The executor, as its attempts see it. */
export interface AttemptHost {
  readonly deadlines: DeadlineWatch;
  /** Bookkeeping done while the handler waits; returns the attempt's open span. */
  inFlight(attempt: Attempt): OpenSpan | undefined;
  /** The attempt ended with `result`: the call's final result, or a promise of it (a retry). */
  settled(attempt: Attempt, result: ToolResult): ToolResult | Promise<ToolResult>;
}

/**
 * One attempt of a call. It settles with the handler's result, or with TIMEOUT when its deadline
 * passes, or as cancelled when the caller aborts (a timed attempt); the handler's signal then
 * fires and a handler that ignores it is abandoned, not awaited. Its promise resolves with what
 * the host makes of that result: the call's final result, or the retry that follows. The instance
 * is its own abort listener and deadline, so a call registers no closures of its own.
 */
export class Attempt implements Deadlined {
  readonly run: CallRun;
  readonly number: number;
  /** When the attempt started, on the executor's clock (0 when nothing needs it). */
  readonly started: number;
  /** When its time limit passes; `Infinity` without one. */
  readonly deadline: number;
  /** Its span, opened while the handler waits. */
  span: OpenSpan | undefined;
  readonly #host: AttemptHost;
  readonly #context: AttemptContext;
  #resolve: ((result: ToolResult | Promise<ToolResult>) => void) | undefined;
  /** The outcome when it came before the promise was made (a synchronous handler). */
  #early: ToolResult | Promise<ToolResult> | undefined;
  #watched = false;
  #listening = false;
  #settled = false;

  constructor(
    host: AttemptHost,
    run: CallRun,
    number: number,
    started: number,
    deadline: number,
    context: AttemptContext,
  ) {
    this.#host = host;
    this.run = run;
    this.number = number;
    this.started = started;
    this.deadline = deadline;
    this.#context = context;
  }

  start(): Promise<ToolResult> {
    const timed = this.deadline !== Number.POSITIVE_INFINITY;
    const callerSignal = this.run.call.signal;
    // Only a timed attempt races the caller's signal (untimed, that is left to the handler); the shared
    // never-aborted signal needs no listener (EventTarget calls are costly per call).
    if (timed && callerSignal !== NEVER_ABORTED) {
      this.#listening = true;
      callerSignal.addEventListener('abort', this, { once: true });
    }
    this.#invoke();
    // A handler that answered synchronously (or failed at once) needs neither watch nor promise.
    if (this.#settled) return Promise.resolve(this.#early as ToolResult | Promise<ToolResult>);
    try {
      this.span = this.#host.inFlight(this);
    } catch {
      // Bookkeeping must not lose the running handler's outcome; the span is retried at the end.
    }
    const promise = new Promise<ToolResult>((resolve) => {
      this.#resolve = resolve;
    });
    if (timed && !this.#settled) {
      this.#watched = true;
      this.#host.deadlines.watch(this);
    }
    return promise;
  }

  /** The caller's signal fired. */
  handleEvent(): void {
    const callerSignal = this.run.call.signal;
    this.#settle(cancelledFailure(callerSignal));
    this.#context.abort(callerSignal.reason);
  }

  /** The deadline passed (called by the watch). */
  expire(): void {
    const failure = timeoutFailure(
      this.run.tool.id,
      this.run.timeoutMs ?? 0,
      this.deadline - (this.run.firstStarted ?? this.started),
      this.number,
    );
    this.#settle(failure);
    // The handler's signal fires; a handler that ignores it is abandoned, not awaited.
    this.#context.abort(new ToolError(failure.error.code, failure.error.message));
  }

  /** Starts the handler; its outcome settles the attempt without an async frame of its own. */
  #invoke(): void {
    const tool = this.run.tool;
    const context = this.#context;
    if (context.aborted) {
      this.#settle(cancelledFailure(context.signal));
      return;
    }
    let returned: unknown;
    try {
      returned = tool.execute(this.run.args as Record<string, unknown>, context);
    } catch (thrown) {
      this.#settle(failureFromThrown(thrown, context.abortedSignal()));
      return;
    }
    if (!isPromiseLike(returned)) {
      this.#settle(normaliseReturn(tool.id, returned));
      return;
    }
    returned.then(
      (value) => this.#settle(normaliseReturn(tool.id, value)),
      (thrown) => this.#settle(failureFromThrown(thrown, context.abortedSignal())),
    );
  }

  #settle(result: ToolResult): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#watched) this.#host.deadlines.unwatch(this);
    if (this.#listening) this.run.call.signal.removeEventListener('abort', this);
    let outcome: ToolResult | Promise<ToolResult>;
    try {
      outcome = this.#host.settled(this, result);
    } catch (thrown) {
      outcome = failureFromThrown(thrown, this.run.call.signal);
    }
    if (this.#resolve) this.#resolve(outcome);
    else this.#early = outcome;
  }
}
