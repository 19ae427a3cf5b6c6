import { fullJitterBackoff } from './backoff.js';
import type { ToolCircuitBreaker } from './circuit-breaker.js';
import { SYSTEM_CLOCK, sleep, type ToolClock } from './clock.js';
import { type Deadlined, DeadlineWatch } from './deadline-watch.js';
import type { DefaultToolExecutorOptions } from './default-tool-executor.js';
import type { ToolEnvironmentGate } from './environment-gate.js';
import {
  ABORT_HORIZON,
  cancelledFailure,
  failureFromThrown,
  lookupTool,
  markAttemptSignal,
  normaliseReturn,
  parseRawArguments,
  SILENT_EMIT,
} from './execution-steps.js';
import type { ToolRateLimiter } from './rate-limiter.js';
import { RetryClassifier } from './retry-classifier.js';
import type {
  ConfirmationDecision,
  ConfirmationRequest,
  ConfirmFunction,
  RegisteredTool,
  ToolContext,
  ToolEvent,
} from './tool.js';
import { ToolCallIds } from './tool-call-ids.js';
import { ToolError, ToolErrorCode } from './tool-error.js';
import { ALLOW_ALL_GATE, type GateVerdict, type ToolExecutionGate } from './tool-execution-gate.js';
import type { ExecuteOptions, ToolExecutor } from './tool-executor.js';
import type { ToolRegistry } from './tool-registry.js';
import { failureResult, type ToolFailure, type ToolResult } from './tool-result.js';
import { RunPolicies, type ToolRunPolicy } from './tool-run-policy.js';
import { ToolServices } from './tool-services.js';
import { ToolSuggester } from './tool-suggester.js';
import { ToolUsageTracker } from './tool-usage-tracker.js';
import { type ArgsDigest, digestArgs, type ToolTraceRecorder } from './trace-recorder.js';

/** Options that switch on run policies (timeouts and retries). */
export interface RunPolicyOptions {
  /**
   * Per tool id, fields that replace those of the tool's declared policy (from the deployment
   * config); a field set to undefined removes it (e.g. `ratePerMinute: undefined` lifts the limit).
   */
  overrides?: Readonly<Record<string, Partial<ToolRunPolicy>>>;
  /** Decides which failures are replayed. Default: a {@link RetryClassifier}. */
  classifier?: RetryClassifier;
  /** Random source for backoff jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/** Options for {@link EnhancedToolExecutor}: the v2 options plus every optional v3 component. */
export interface EnhancedToolExecutorOptions extends DefaultToolExecutorOptions {
  /** Environment preconditions, checked fail-open before the risk gate. Off when absent. */
  environmentGate?: ToolEnvironmentGate;
  /** Per-tool token buckets (quota from the run policy). Off when absent. */
  rateLimiter?: ToolRateLimiter;
  /** Per-tool circuit breakers. Off when absent. */
  circuitBreaker?: ToolCircuitBreaker;
  /** Records one span per attempt. Off when absent. */
  traces?: ToolTraceRecorder;
  /** Enforces timeouts and retries of run policies. Off (v2 semantics) when absent. */
  runPolicies?: RunPolicyOptions;
  /** Clock for timeouts and backoff waits. Default: the system clock. */
  clock?: ToolClock;
}

const NEVER_ABORTED = new AbortController().signal;
const LEGACY: ToolRunPolicy = RunPolicies.legacy;

/**
 * The v3 pipeline, in this fixed order: lookup (miss → suggestions) → environment gate (fail-open)
 * → risk gate → schema validation → rate limiter → circuit breaker → timeout + retry → tool.
 * Every v3 component is optional; with none injected the results and rendered strings are those of
 * the v2 {@link DefaultToolExecutor}. Nothing thrown ever leaves `execute`.
 */
export class EnhancedToolExecutor implements ToolExecutor {
  readonly registry: ToolRegistry;
  readonly usageTracker: ToolUsageTracker;
  /** The trace recorder, when tracing is on. */
  readonly traces: ToolTraceRecorder | undefined;
  /** The rate limiter, when on. */
  readonly rateLimiter: ToolRateLimiter | undefined;
  /** The circuit breaker, when on. */
  readonly circuitBreaker: ToolCircuitBreaker | undefined;
  /** The environment gate, when on. */
  readonly environmentGate: ToolEnvironmentGate | undefined;
  readonly #gate: ToolExecutionGate;
  readonly #suggester: ToolSuggester;
  readonly #services: ToolServices;
  readonly #confirm: ConfirmFunction | undefined;
  readonly #callIds: ToolCallIds;
  readonly #now: () => number;
  readonly #clock: ToolClock;
  readonly #policies: RunPolicyOptions | undefined;
  readonly #classifier: RetryClassifier;
  readonly #random: () => number;
  /** Time limits of running attempts, on one timer. */
  readonly #deadlines: DeadlineWatch;

  constructor(options: EnhancedToolExecutorOptions) {
    this.registry = options.registry;
    this.usageTracker = options.usageTracker ?? new ToolUsageTracker();
    this.traces = options.traces;
    this.rateLimiter = options.rateLimiter;
    this.circuitBreaker = options.circuitBreaker;
    this.environmentGate = options.environmentGate;
    this.#gate = options.gate ?? ALLOW_ALL_GATE;
    this.#suggester = options.suggester ?? new ToolSuggester();
    this.#services = options.services ?? new ToolServices();
    this.#confirm = options.confirm;
    this.#callIds = options.callIds ?? new ToolCallIds();
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    const clock = this.#clock;
    this.#now = options.now ?? (() => clock.now());
    this.#policies = options.runPolicies;
    this.#classifier = options.runPolicies?.classifier ?? new RetryClassifier();
    this.#random = options.runPolicies?.random ?? Math.random;
    this.#deadlines = new DeadlineWatch(this.#clock);
  }

  /** The run policy that applies to a tool: its declared policy (else legacy) with overrides. */
  policyOf(tool: RegisteredTool): ToolRunPolicy {
    const declared = tool.runPolicy ?? LEGACY;
    const override = this.#policies?.overrides?.[tool.id];
    return override
      ? { ...declared, ...override, name: override.name ?? `${declared.name}*` }
      : declared;
  }

  execute(id: string, rawArgs: unknown, options: ExecuteOptions = NO_OPTIONS): Promise<ToolResult> {
    const signal = options.signal ?? NEVER_ABORTED;
    // Not async: the steps before the tool run synchronously, and the caller awaits the promise of
    // the run itself. Every async layer costs a turn of the event loop's job queue on each call,
    // which a remote call pays cold, with the caches emptied by the wait for its answer.
    try {
      let tool = typeof id === 'string' ? this.registry.get(id) : undefined;
      if (!tool) {
        const found = lookupTool(this.registry, this.#suggester, id);
        if (!found.ok) return Promise.resolve(found.failure);
        tool = found.tool;
      }
      const started = this.#now();
      const onEvent = options.onEvent;
      const call: CallState = {
        callId: options.callId ?? this.#callIds.next(),
        sessionId: options.sessionId ?? 'default',
        signal,
        onEvent,
        emit: onEvent ? safeEmitter(onEvent) : SILENT_EMIT,
        confirm: options.confirm ?? this.#confirm,
      };
      if (this.environmentGate) {
        const environment = this.environmentGate.check(tool, rawArgs);
        if (!environment.allowed) {
          const result = this.#refuse(tool, call.callId, rawArgs, environment.failure);
          return Promise.resolve(this.#finish(tool, result, started));
        }
      }
      // Gates that decide synchronously (policy or remembered state) cost no extra turn.
      const checked = this.#gate.check(tool, rawArgs, {
        sessionId: call.sessionId,
        callId: call.callId,
        signal,
      });
      if (isPromiseLike(checked)) return this.#afterGate(checked, tool, rawArgs, call, started);
      return this.#admit(checked, tool, rawArgs, call, started);
    } catch (thrown) {
      return Promise.resolve(failureFromThrown(thrown, signal));
    }
  }

  /** The rest of `execute` once an asynchronous gate (a confirmation) has decided. */
  async #afterGate(
    pending: PromiseLike<GateVerdict>,
    tool: RegisteredTool,
    rawArgs: unknown,
    call: CallState,
    started: number,
  ): Promise<ToolResult> {
    try {
      return await this.#admit(await pending, tool, rawArgs, call, started);
    } catch (thrown) {
      return failureFromThrown(thrown, call.signal);
    }
  }

  /** After the risk gate: schema validation, rate limiter, then the run. May throw (callers catch). */
  #admit(
    verdict: GateVerdict,
    tool: RegisteredTool,
    rawArgs: unknown,
    call: CallState,
    started: number,
  ): Promise<ToolResult> {
    if (!verdict.allowed) {
      const result = this.#refuse(tool, call.callId, rawArgs, verdict.result);
      return Promise.resolve(this.#finish(tool, result, started));
    }
    let argsObject: Record<string, unknown>;
    if (typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs)) {
      argsObject = rawArgs as Record<string, unknown>;
    } else {
      const parsedArgs = parseRawArguments(rawArgs);
      if (!parsedArgs.ok) {
        const result = this.#refuse(tool, call.callId, rawArgs, parsedArgs.failure);
        return Promise.resolve(this.#finish(tool, result, started));
      }
      argsObject = parsedArgs.value;
    }
    const validated = tool.inputSchema.parse(argsObject);
    if (!validated.ok) {
      const result = this.#refuse(tool, call.callId, rawArgs, validated.failure);
      return Promise.resolve(this.#finish(tool, result, started));
    }
    const policy = this.policyOf(tool);
    if (this.rateLimiter) {
      const decision = this.rateLimiter.tryAcquire(tool.id, policy.ratePerMinute);
      if (!decision.allowed) {
        const failure = rateLimitedFailure(
          tool.id,
          policy.ratePerMinute ?? 0,
          decision.retryAfterMs,
        );
        return Promise.resolve(
          this.#finish(tool, this.#refuse(tool, call.callId, rawArgs, failure), started),
        );
      }
    }
    return this.#run(tool, validated.value, rawArgs, policy, call, started);
  }

  /** Circuit breaker, attempts under the run policy, one span each; never rejects. */
  async #run(
    tool: RegisteredTool,
    args: unknown,
    rawArgs: unknown,
    policy: ToolRunPolicy,
    call: CallState,
    started: number,
  ): Promise<ToolResult> {
    const enforce = this.#policies !== undefined;
    const maxRetries = enforce ? Math.max(0, policy.maxRetries) : 0;
    const timeoutMs = enforce ? policy.timeoutMs : undefined;
    try {
      for (let attempt = 1; ; attempt += 1) {
        if (this.circuitBreaker) {
          const decision = this.circuitBreaker.check(tool.id);
          if (!decision.allowed) {
            const refused = this.#refuse(tool, call.callId, rawArgs, decision.failure);
            return this.#finish(tool, refused, started);
          }
        }
        const traces = this.traces;
        const timed = timeoutMs !== undefined && timeoutMs > 0;
        const attemptStarted = traces || timed ? this.#clock.now() : 0;
        let result: ToolResult;
        if (timed) {
          const running = this.#invokeWithTimeout(
            tool,
            args,
            call,
            attempt,
            attemptStarted,
            timeoutMs,
          );
          // The handler has run up to its first wait (a remote request is in flight by now):
          // digest the arguments for the span meanwhile, off the call's critical path.
          const argsDigest = traces ? digestArgs(rawArgs) : undefined;
          result = await running;
          this.#recordAttempt(tool, call, attempt, rawArgs, attemptStarted, result, argsDigest);
        } else {
          // The caller's signal as is (v2); without one, a fresh signal made on first use, never
          // the shared never-aborted one, so leftover listeners cannot pile up.
          const context = new AttemptContext(
            tool.id,
            call,
            attempt,
            this.#services,
            call.signal === NEVER_ABORTED ? undefined : call.signal,
          );
          let argsDigest: ArgsDigest | undefined;
          if (context.aborted) {
            result = cancelledFailure(context.signal);
          } else {
            try {
              let returned = tool.execute(args as Record<string, unknown>, context);
              argsDigest = traces ? digestArgs(rawArgs) : undefined;
              if (isPromiseLike(returned)) returned = await returned;
              result = normaliseReturn(tool.id, returned);
            } catch (thrown) {
              result = failureFromThrown(thrown, context.abortedSignal());
            }
          }
          this.#recordAttempt(tool, call, attempt, rawArgs, attemptStarted, result, argsDigest);
        }
        if (result.ok || !enforce) return this.#finish(tool, result, started);
        const decision = this.#classifier.classify(result, tool.metadata.annotations);
        if (decision === 'outcome_unknown')
          return this.#finish(tool, this.#classifier.outcomeUnknown(result, tool.id), started);
        if (decision === 'terminal' || attempt > maxRetries)
          return this.#finish(tool, result, started);
        const delayMs = fullJitterBackoff(attempt, {
          baseMs: policy.backoffBaseMs,
          maxMs: policy.backoffMaxMs,
          random: this.#random,
        });
        notify(
          call.onEvent,
          `${tool.id}: attempt ${attempt} failed (${result.error.code}); retrying in ${delayMs} ms.\n`,
        );
        if (!(await sleep(this.#clock, delayMs, call.signal)))
          return this.#finish(tool, cancelledFailure(call.signal), started);
      }
    } catch (thrown) {
      return failureFromThrown(thrown, call.signal);
    }
  }

  /** One span per attempt (recorded directly: a handle would only add an allocation here). */
  #recordAttempt(
    tool: RegisteredTool,
    call: CallState,
    attempt: number,
    rawArgs: unknown,
    started: number,
    result: ToolResult,
    argsDigest: ArgsDigest | undefined,
  ): void {
    this.traces?.record({
      callId: call.callId,
      toolId: tool.id,
      attempt,
      args: rawArgs,
      started,
      result,
      argsDigest,
    });
    this.circuitBreaker?.record(tool.id, result);
  }

  #invokeWithTimeout(
    tool: RegisteredTool,
    args: unknown,
    call: CallState,
    attempt: number,
    started: number,
    timeoutMs: number,
  ): Promise<ToolResult> {
    const callerSignal = call.signal;
    if (callerSignal.aborted) return Promise.resolve(cancelledFailure(callerSignal));
    // The handler's signal is created only if the handler reads it; timeouts still fire it.
    const context = new AttemptContext(tool.id, call, attempt, this.#services, undefined);
    const deadline = started + timeoutMs;
    context.limit(this.#clock, deadline);
    return new TimedAttempt(this.#deadlines, tool, timeoutMs, deadline, context, callerSignal).run(
      args,
    );
  }

  #refuse(
    tool: RegisteredTool,
    callId: string,
    rawArgs: unknown,
    failure: ToolFailure,
  ): ToolFailure {
    const traces = this.traces;
    if (traces) {
      const now = this.#clock.now();
      traces.record({
        callId,
        toolId: tool.id,
        attempt: 0,
        args: rawArgs,
        started: now,
        result: failure,
      });
    }
    return failure;
  }

  #finish(tool: RegisteredTool, result: ToolResult, started: number): ToolResult {
    this.usageTracker.record(tool.id, result, this.#now() - started);
    return result;
  }
}

/** What an attempt needs to know about its call. */
interface CallState {
  readonly callId: string;
  readonly sessionId: string;
  readonly signal: AbortSignal;
  readonly onEvent: ExecuteOptions['onEvent'];
  /** `onEvent` wrapped so that it never throws, or {@link SILENT_EMIT} without a sink. */
  readonly emit: (event: ToolEvent) => void;
  readonly confirm: ConfirmFunction | undefined;
}

const NO_OPTIONS: ExecuteOptions = Object.freeze({});

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function safeEmitter(onEvent: (event: ToolEvent) => void): (event: ToolEvent) => void {
  return (event) => {
    try {
      onEvent(event);
    } catch {
      // A failing sink must not fail the tool.
    }
  };
}

async function denyConfirm(): Promise<ConfirmationDecision> {
  return 'deny';
}

/**
 * The context of one attempt. It behaves as `createToolContext` does, but its abort signal is made
 * only when the handler reads it (an AbortSignal costs more than the rest of a call), and it can
 * be aborted before that: a signal made later starts aborted, with the same reason.
 */
class AttemptContext implements ToolContext {
  /** Own and enumerable (a handler may spread its context); one shared getter for every context. */
  static readonly #signalProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: AttemptContext): AbortSignal {
      return this.#makeSignal();
    },
  };

  readonly callId: string;
  readonly sessionId: string;
  readonly attempt: number;
  readonly services: ToolServices;
  declare readonly signal: AbortSignal;
  readonly emit: (event: ToolEvent) => void;
  readonly confirm: (
    request: Omit<ConfirmationRequest, 'sessionId' | 'toolId'> & { toolId?: string },
  ) => Promise<ConfirmationDecision>;
  readonly #toolId: string;
  readonly #confirmFn: ConfirmFunction | undefined;
  /** Whether a signal from outside (the caller's) can fire this attempt at any moment. */
  readonly #external: boolean;
  /** When the executor's time limit fires, on `#clock`; `Infinity` without one. */
  #deadline = Number.POSITIVE_INFINITY;
  #clock: ToolClock | undefined;
  #signal: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  constructor(
    toolId: string,
    call: CallState,
    attempt: number,
    services: ToolServices,
    signal: AbortSignal | undefined,
  ) {
    this.callId = call.callId;
    this.sessionId = call.sessionId;
    this.attempt = attempt;
    this.services = services;
    this.#toolId = toolId;
    this.#confirmFn = call.confirm;
    this.#signal = signal;
    this.#external = signal !== undefined || call.signal !== NEVER_ABORTED;
    // Own, enumerable members like the plain object of `createToolContext`, so a handler that
    // spreads its context (`{ ...context, signal }`) keeps emit, confirm and the signal.
    Object.defineProperty(this, 'signal', AttemptContext.#signalProperty);
    this.emit = call.emit;
    this.confirm = call.confirm ? (request) => this.#confirmWith(request) : denyConfirm;
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

/**
 * One attempt under a time limit: settles with the handler's result, or with TIMEOUT when the
 * time runs out, or as cancelled when the caller aborts; the handler's signal then fires and a
 * handler that ignores it is abandoned, not awaited. The instance is its own abort listener, so a
 * call registers no closures besides the timer's.
 */
class TimedAttempt implements Deadlined {
  readonly deadline: number;
  readonly #deadlines: DeadlineWatch;
  readonly #tool: RegisteredTool;
  readonly #timeoutMs: number;
  readonly #context: AttemptContext;
  readonly #callerSignal: AbortSignal;
  #resolve: ((result: ToolResult) => void) | undefined;
  #watched = false;
  #listening = false;
  #settled = false;

  constructor(
    deadlines: DeadlineWatch,
    tool: RegisteredTool,
    timeoutMs: number,
    deadline: number,
    context: AttemptContext,
    callerSignal: AbortSignal,
  ) {
    this.#deadlines = deadlines;
    this.#tool = tool;
    this.#timeoutMs = timeoutMs;
    this.deadline = deadline;
    this.#context = context;
    this.#callerSignal = callerSignal;
  }

  run(args: unknown): Promise<ToolResult> {
    const promise = new Promise<ToolResult>((resolve) => {
      this.#resolve = resolve;
    });
    // The shared never-aborted signal needs no listener (EventTarget calls are costly per call).
    if (this.#callerSignal !== NEVER_ABORTED) {
      this.#listening = true;
      this.#callerSignal.addEventListener('abort', this, { once: true });
    }
    this.#invoke(args);
    // Watched once the handler has started its work (a remote request is in flight by now); a
    // handler that answered synchronously needs no watching at all.
    if (!this.#settled) {
      this.#watched = true;
      this.#deadlines.watch(this);
    }
    return promise;
  }

  /** The caller's signal fired. */
  handleEvent(): void {
    const callerSignal = this.#callerSignal;
    this.#settle(cancelledFailure(callerSignal));
    this.#context.abort(callerSignal.reason);
  }

  /** The deadline passed (called by the watch). */
  expire(): void {
    const failure = timeoutFailure(this.#tool.id, this.#timeoutMs);
    this.#settle(failure);
    // The handler's signal fires; a handler that ignores it is abandoned, not awaited.
    this.#context.abort(new ToolError(failure.error.code, failure.error.message));
  }

  /** Starts the handler; its outcome settles the attempt without an async frame of its own. */
  #invoke(args: unknown): void {
    const tool = this.#tool;
    const context = this.#context;
    if (context.aborted) {
      this.#settle(cancelledFailure(context.signal));
      return;
    }
    let returned: unknown;
    try {
      returned = tool.execute(args as Record<string, unknown>, context);
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
    if (this.#watched) this.#deadlines.unwatch(this);
    if (this.#listening) this.#callerSignal.removeEventListener('abort', this);
    this.#resolve?.(result);
  }
}

function notify(onEvent: ExecuteOptions['onEvent'], text: string): void {
  if (!onEvent) return;
  try {
    onEvent({ type: 'output', stream: 'log', text });
  } catch {
    // A failing sink must not fail the call.
  }
}

/** The TIMEOUT failure of an attempt that ran out of time. */
export function timeoutFailure(toolId: string, timeoutMs: number): ToolFailure {
  return failureResult(
    ToolErrorCode.TIMEOUT,
    `${toolId} did not finish within ${formatDuration(timeoutMs)} and was stopped.`,
    { details: { timeoutMs } },
  );
}

/** The RATE_LIMITED failure of a call over its tool's quota. */
export function rateLimitedFailure(
  toolId: string,
  ratePerMinute: number,
  retryAfterMs: number,
): ToolFailure {
  return failureResult(
    ToolErrorCode.RATE_LIMITED,
    `${toolId} is limited to ${ratePerMinute} calls a minute and the quota is used up.`,
    {
      retryAfterMs,
      hint: `Wait ${formatDuration(retryAfterMs)} before calling ${toolId} again; avoid calling it in a loop.`,
      details: { ratePerMinute },
    },
  );
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.ceil(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
