/**
 * The context one attempt of a call hands its handler: the abort signal is made only when the
 * handler reads it, and confirmations carry the tool and session.
 */

import type { ToolClock } from '../contract/clock.js';
import type {
  CallPrincipal,
  ConfirmationDecision,
  ConfirmationRequest,
  ConfirmFunction,
  InputRequest,
  InputResponse,
  ToolContext,
  ToolEvent,
} from '../contract/tool.js';
import { ABORT_HORIZON, markAttemptSignal, SILENT_EMIT } from './execution-steps.js';
import type { DecisionRecord } from './settled-call.js';

/** The signal of calls whose caller gave none: shared and never aborted, so it costs nothing. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** What an attempt needs to know about its call. */
export interface CallState {
  readonly callId: string;
  readonly sessionId: string;
  readonly principal?: CallPrincipal | undefined;
  readonly signal: AbortSignal;
  /** The caller's `onEvent`, unable to throw, or {@link SILENT_EMIT} without a sink. */
  readonly emit: (event: ToolEvent) => void;
  readonly confirm: ConfirmFunction | undefined;
  /** How the caller's client answers input requests; absent when it cannot. */
  readonly requestInput?: ((request: InputRequest) => Promise<InputResponse>) | undefined;
  /** What the gate decided, collected when the executor has an `onSettled` observer. */
  readonly decision?: DecisionRecord | undefined;
}

async function denyConfirm(): Promise<ConfirmationDecision> {
  return 'deny';
}

/**
 * The context of one attempt. It behaves as `createToolContext` does, but its abort signal is made
 * only when the handler reads it (an AbortSignal costs more than the rest of a call), and it can
 * be aborted before that: a signal made later starts aborted, with the same reason.
 */
export class AttemptContext implements ToolContext {
  /** Own and enumerable (a handler may spread its context); one shared getter for every context. */
  static readonly #signalProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: AttemptContext): AbortSignal {
      return this.#makeSignal();
    },
  };

  // Set once by `init` (a context serves exactly one attempt); placeholders until then.
  callId = '';
  sessionId = '';
  principal: CallPrincipal | undefined = undefined;
  attempt = 0;
  declare readonly signal: AbortSignal;
  emit: (event: ToolEvent) => void = SILENT_EMIT;
  confirm: (
    request: Omit<ConfirmationRequest, 'sessionId' | 'toolId'> & { toolId?: string },
  ) => Promise<ConfirmationDecision> = denyConfirm;
  requestInput: ((request: InputRequest) => Promise<InputResponse>) | undefined = undefined;
  #toolId = '';
  #confirmFn: ConfirmFunction | undefined;
  /** Whether a signal from outside (the caller's) can fire this attempt at any moment. */
  #external = false;
  /** When the executor's time limit fires, on `#clock`; `Infinity` without one. */
  #deadline = Number.POSITIVE_INFINITY;
  #clock: ToolClock | undefined;
  #signal: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /**
   * A blank context; {@link init} sets it up. Defining the own `signal` accessor is the costly
   * part of making a context, so the executor makes the next one while a call waits on I/O.
   */
  constructor() {
    // Own and enumerable like the members of `createToolContext`'s plain object, so a handler
    // that spreads its context (`{ ...context, signal }`) keeps emit, confirm and the signal.
    Object.defineProperty(this, 'signal', AttemptContext.#signalProperty);
  }

  /** Sets the context up for its attempt (once; a context is never reused). */
  init(toolId: string, call: CallState, attempt: number, signal: AbortSignal | undefined): this {
    this.callId = call.callId;
    this.sessionId = call.sessionId;
    this.principal = call.principal;
    this.attempt = attempt;
    this.#toolId = toolId;
    this.#confirmFn = call.confirm;
    this.#signal = signal;
    this.#external = signal !== undefined || call.signal !== NEVER_ABORTED;
    this.emit = call.emit;
    if (call.confirm) this.confirm = (request) => this.#confirmWith(request);
    this.requestInput = call.requestInput;
    return this;
  }

  /** Whether the attempt was aborted (without making a signal). */
  get aborted(): boolean {
    return this.#signal ? this.#signal.aborted : this.#aborted;
  }

  /** The signal when aborted, else undefined (for turning a throw into a result). */
  abortedSignal(): AbortSignal | undefined {
    return this.aborted ? this.#makeSignal() : undefined;
  }

  /** Fixes when the executor's time limit of this attempt fires, on `clock` (for {@link ABORT_HORIZON}). */
  limit(clock: ToolClock, deadline: number): void {
    this.#clock = clock;
    this.#deadline = deadline;
  }

  /** Milliseconds until the signal can fire at the earliest (see `mayAbortWithin`). */
  [ABORT_HORIZON](): number {
    if (this.#external || this.aborted) return 0;
    const clock = this.#clock;
    return clock ? Math.max(0, this.#deadline - clock.now()) : this.#deadline;
  }

  /** Aborts the attempt: fires the signal if made, or makes it start aborted. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  async #confirmWith(
    request: Omit<ConfirmationRequest, 'sessionId' | 'toolId'> & { toolId?: string },
  ): Promise<ConfirmationDecision> {
    const confirm = this.#confirmFn;
    if (!confirm) return 'deny';
    try {
      return await confirm(
        { ...request, toolId: request.toolId ?? this.#toolId, sessionId: this.sessionId },
        this.#makeSignal(),
      );
    } catch {
      return 'deny';
    }
  }

  #makeSignal(): AbortSignal {
    if (this.#signal) return this.#signal;
    const controller = new AbortController();
    if (this.#aborted) controller.abort(this.#reason);
    this.#controller = controller;
    this.#signal = controller.signal;
    // Made for this attempt only and dropped with it: listeners left on it cannot pile up.
    markAttemptSignal(controller.signal);
    return controller.signal;
  }
}
