import { checkArgumentLimits } from '../contract/argument-limits.js';
import { SYSTEM_CLOCK, sleep, type ToolClock } from '../contract/clock.js';
import type {
  ConfirmationDecision,
  ConfirmationRequest,
  ConfirmFunction,
  RegisteredTool,
  ToolContext,
  ToolEvent,
} from '../contract/tool.js';
import { ToolError, ToolErrorCode } from '../contract/tool-error.js';
import type { ExecuteOptions, ToolExecutor } from '../contract/tool-executor.js';
import { failureResult, type ToolFailure, type ToolResult } from '../contract/tool-result.js';
import { ToolServices } from '../contract/tool-services.js';
import { fullJitterBackoff } from '../policies/backoff.js';
import type { CircuitBreakerLike, CircuitDecision } from '../policies/circuit-breaker.js';
import type { ToolEnvironmentGate } from '../policies/environment-gate.js';
import {
  type RateLimitDecision,
  type RateLimiterLike,
  ToolRateLimiter,
} from '../policies/rate-limiter.js';
import { RetryClassifier } from '../policies/retry-classifier.js';
import {
  ALLOW_ALL_GATE,
  type GateVerdict,
  type ToolExecutionGate,
} from '../policies/tool-execution-gate.js';
import { RunPolicies, type ToolRunPolicy } from '../policies/tool-run-policy.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { ToolSuggester } from '../registry/tool-suggester.js';
import { ToolUsageTracker } from '../registry/tool-usage-tracker.js';
import { type Deadlined, DeadlineWatch } from './deadline-watch.js';
import type { DefaultToolExecutorOptions } from './default-tool-executor.js';
import {
  ABORT_HORIZON,
  cancelledFailure,
  failureFromThrown,
  lookupTool,
  markAttemptSignal,
  normaliseReturn,
  parseRawArguments,
  SILENT_EMIT,
  safeEmitter,
} from './execution-steps.js';
import { ToolCallIds } from './tool-call-ids.js';
import type { OpenSpan, ToolTraceRecorder } from './trace-recorder.js';

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
  /**
   * Per-tool token buckets (quota from the run policy), e.g. a {@link ToolRateLimiter}. Off when
   * absent. A limiter that answers with a promise (shared state) costs one await per call.
   */
  rateLimiter?: RateLimiterLike;
  /**
   * Per-tool circuit breakers, e.g. a {@link ToolCircuitBreaker}. Off when absent. A breaker that
   * answers `check` with a promise (shared state) costs one await per attempt.
   */
  circuitBreaker?: CircuitBreakerLike;
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
  readonly rateLimiter: RateLimiterLike | undefined;
  /** The circuit breaker, when on. */
  readonly circuitBreaker: CircuitBreakerLike | undefined;
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
  /** Each caller's own quota of each rate-limited tool (see `#admit`). */
  readonly #callerQuotas: ToolRateLimiter;
  /** The next attempt's context, made ahead of time (see {@link AttemptContext}). */
  #spareContext: AttemptContext | undefined;
  /** What attempts call back into: one object per executor, so an attempt allocates no closures. */
  readonly #host: AttemptHost;

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
    this.#callerQuotas = new ToolRateLimiter({ clock: this.#clock });
    const clock = this.#clock;
    this.#now = options.now ?? (() => clock.now());
    this.#policies = options.runPolicies;
    this.#classifier = options.runPolicies?.classifier ?? new RetryClassifier();
    this.#random = options.runPolicies?.random ?? Math.random;
    this.#host = {
      // Time limits of running attempts, on one timer.
      deadlines: new DeadlineWatch(this.#clock),
      inFlight: (attempt) => this.#whileInFlight(attempt),
      settled: (attempt, result) => this.#afterAttempt(attempt, result),
    };
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
      const call: CallState = {
        callId: options.callId ?? this.#callIds.next(),
        sessionId: options.sessionId ?? 'default',
        signal,
        emit: safeEmitter(options.onEvent),
        confirm: options.confirm ?? this.#confirm,
      };
      if (this.environmentGate) {
        const environment = this.environmentGate.check(tool, rawArgs);
        if (!environment.allowed) {
          return this.#refuse(tool, call.callId, rawArgs, environment.failure, started);
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
      return this.#refuse(tool, call.callId, rawArgs, verdict.result, started);
    }
    let argsObject: Record<string, unknown>;
    if (typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs)) {
      argsObject = rawArgs as Record<string, unknown>;
    } else {
      const parsedArgs = parseRawArguments(rawArgs);
      if (!parsedArgs.ok) {
        return this.#refuse(tool, call.callId, rawArgs, parsedArgs.failure, started);
      }
      argsObject = parsedArgs.value;
    }
    const overLimit = checkArgumentLimits(tool, argsObject);
    if (overLimit) return this.#refuse(tool, call.callId, rawArgs, overLimit, started);
    const validated = tool.inputSchema.parse(argsObject);
    if (!validated.ok) {
      return this.#refuse(tool, call.callId, rawArgs, validated.failure, started);
    }
    const policy = this.policyOf(tool);
    const enforce = this.#policies !== undefined;
    const run: CallRun = {
      tool,
      args: validated.value,
      rawArgs,
      policy,
      call,
      started,
      timeoutMs: enforce ? policy.timeoutMs : undefined,
      maxRetries: enforce ? Math.max(0, policy.maxRetries) : 0,
    };
    const rate = policy.ratePerMinute;
    if (this.rateLimiter && rate !== undefined && rate > 0) {
      // The caller's own quota first, so that one session using its quota up leaves the shared
      // one (a few callers' worth) to the others. It is kept in this process: a session is served
      // by one replica, so only the quota all callers share needs the shared store.
      const callerKey = callerQuotaKey(tool.id, call.sessionId);
      const own = this.#callerQuotas.tryAcquire(callerKey, rate);
      if (!own.allowed) return this.#refuseRate(run, own.retryAfterMs, 'caller');
      const shared = this.rateLimiter.tryAcquire(tool.id, rate * SHARED_QUOTA_CALLERS);
      if (isPromiseLike(shared)) return this.#afterLimiter(shared, run, callerKey);
      if (!shared.allowed) {
        this.#callerQuotas.giveBack(callerKey);
        return this.#refuseRate(run, shared.retryAfterMs, 'shared');
      }
    }
    return this.#attempt(run, 1);
  }

  /** The rest of `#admit` once an asynchronous (shared) rate limiter has decided; never rejects. */
  async #afterLimiter(
    pending: PromiseLike<RateLimitDecision>,
    run: CallRun,
    callerKey: string,
  ): Promise<ToolResult> {
    try {
      const decision = await pending;
      if (!decision.allowed) {
        this.#callerQuotas.giveBack(callerKey);
        return await this.#refuseRate(run, decision.retryAfterMs, 'shared');
      }
      return await this.#attempt(run, 1);
    } catch (thrown) {
      return failureFromThrown(thrown, run.call.signal);
    }
  }

  /** Refuses a call over its tool's quota (the caller's own, or the one all callers share). */
  #refuseRate(run: CallRun, retryAfterMs: number, quota: 'caller' | 'shared'): Promise<ToolResult> {
    const { tool, call } = run;
    const rate = run.policy.ratePerMinute ?? 0;
    const failure =
      quota === 'caller'
        ? rateLimitedFailure(tool.id, rate, retryAfterMs)
        : rateLimitedFailure(tool.id, rate * SHARED_QUOTA_CALLERS, retryAfterMs, {
            shared: true,
          });
    return this.#refuse(tool, call.callId, run.rawArgs, failure, run.started);
  }

  /**
   * Runs attempt `number` of a call (circuit breaker, time limit, one span) and settles with the
   * call's final result, retries included; never rejects. Not async: the promise returned is the
   * attempt's own, settled from the handler's outcome together with the bookkeeping, so a call
   * that succeeds first time costs no job-queue turn of the executor's between the handler's
   * answer and the caller.
   */
  #attempt(run: CallRun, number: number): Promise<ToolResult> {
    const { tool, call } = run;
    if (this.circuitBreaker) {
      const decision = this.circuitBreaker.check(tool.id);
      if (isPromiseLike(decision)) return this.#afterBreaker(decision, run, number);
      if (!decision.allowed) {
        return this.#refuse(tool, call.callId, run.rawArgs, decision.failure, run.started);
      }
    }
    return this.#run(run, number);
  }

  /** The rest of `#attempt` once an asynchronous (shared) breaker has decided; never rejects. */
  async #afterBreaker(
    pending: PromiseLike<CircuitDecision>,
    run: CallRun,
    number: number,
  ): Promise<ToolResult> {
    try {
      const decision = await pending;
      if (!decision.allowed) {
        return await this.#refuse(
          run.tool,
          run.call.callId,
          run.rawArgs,
          decision.failure,
          run.started,
        );
      }
      return await this.#run(run, number);
    } catch (thrown) {
      return failureFromThrown(thrown, run.call.signal);
    }
  }

  /** Runs attempt `number` past the breaker: time limit, one span, the handler. */
  #run(run: CallRun, number: number): Promise<ToolResult> {
    const { tool, call } = run;
    const timeoutMs = run.timeoutMs;
    const timed = timeoutMs !== undefined && timeoutMs > 0;
    const started = this.traces || timed ? this.#clock.now() : 0;
    let context: AttemptContext;
    let deadline = Number.POSITIVE_INFINITY;
    if (timed) {
      if (call.signal.aborted) return Promise.resolve(cancelledFailure(call.signal));
      // The handler's signal is created only if the handler reads it; timeouts still fire it.
      // One deadline covers every attempt: a retry runs in what the earlier ones left.
      run.firstStarted ??= started;
      deadline = run.firstStarted + timeoutMs;
      if (deadline <= started) {
        return Promise.resolve(
          this.#finish(
            tool,
            timeoutFailure(tool.id, timeoutMs, started - run.firstStarted),
            run.started,
          ),
        );
      }
      context = this.#newContext().init(tool.id, call, number, this.#services, undefined);
      context.limit(this.#clock, deadline);
    } else {
      // v2 semantics: the caller's signal as is; without one, a fresh signal made on first use,
      // never the shared never-aborted one, so leftover listeners cannot pile up.
      const signal = call.signal === NEVER_ABORTED ? undefined : call.signal;
      context = this.#newContext().init(tool.id, call, number, this.#services, signal);
    }
    return new Attempt(this.#host, run, number, started, deadline, context).start();
  }

  /** A fresh context: the one made ahead of time while an earlier call waited, if any. */
  #newContext(): AttemptContext {
    const spare = this.#spareContext;
    this.#spareContext = undefined;
    return spare ?? new AttemptContext();
  }

  /**
   * What an attempt does while its handler waits (a remote request is in flight by now): open its
   * span (argument digest included) and make the next call id, off the critical path.
   */
  #whileInFlight(attempt: Attempt): OpenSpan | undefined {
    this.#callIds.prepare();
    this.#spareContext ??= new AttemptContext();
    const { run } = attempt;
    return this.traces?.open({
      callId: run.call.callId,
      toolId: run.tool.id,
      attempt: attempt.number,
      args: run.rawArgs,
      started: attempt.started,
    });
  }

  /**
   * An attempt ended: its span, the breaker, then the call's result, or the next attempt after
   * the backoff (a promise) when the run policy retries this failure.
   */
  #afterAttempt(attempt: Attempt, result: ToolResult): ToolResult | Promise<ToolResult> {
    const { run } = attempt;
    const { tool } = run;
    const span = attempt.span ?? this.#whileInFlight(attempt);
    if (span) this.traces?.close(span, attempt.started, result);
    this.circuitBreaker?.record(tool.id, breakerOutcome(tool, result));
    if (result.ok || this.#policies === undefined) return this.#finish(tool, result, run.started);
    const decision = this.#classifier.classify(result, tool.metadata.annotations);
    if (decision === 'outcome_unknown')
      return this.#finish(tool, this.#classifier.outcomeUnknown(result, tool.id), run.started);
    if (decision === 'terminal' || attempt.number > run.maxRetries || this.#outOfTime(run))
      return this.#finish(tool, result, run.started);
    return this.#retry(run, attempt.number, result);
  }

  /** Whether the call's one time limit (all attempts together) has passed. */
  #outOfTime(run: CallRun): boolean {
    if (run.timeoutMs === undefined || run.firstStarted === undefined) return false;
    return this.#clock.now() >= run.firstStarted + run.timeoutMs;
  }

  /** Waits out the backoff, then runs the next attempt; never rejects. */
  async #retry(run: CallRun, failed: number, result: ToolFailure): Promise<ToolResult> {
    const { policy, call, tool } = run;
    try {
      const delayMs = fullJitterBackoff(failed, {
        baseMs: policy.backoffBaseMs,
        maxMs: policy.backoffMaxMs,
        random: this.#random,
      });
      call.emit({
        type: 'output',
        stream: 'log',
        text: `${tool.id}: attempt ${failed} failed (${result.error.code}); retrying in ${delayMs} ms.\n`,
      });
      if (!(await sleep(this.#clock, delayMs, call.signal)))
        return this.#finish(tool, cancelledFailure(call.signal), run.started);
      return await this.#attempt(run, failed + 1);
    } catch (thrown) {
      return failureFromThrown(thrown, call.signal);
    }
  }

  /** A call refused before its tool ran: an attempt-0 span, the usage record, the failure. */
  #refuse(
    tool: RegisteredTool,
    callId: string,
    rawArgs: unknown,
    failure: ToolFailure,
    started: number,
  ): Promise<ToolResult> {
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
    return Promise.resolve(this.#finish(tool, failure, started));
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
  /** The caller's `onEvent`, unable to throw, or {@link SILENT_EMIT} without a sink. */
  readonly emit: (event: ToolEvent) => void;
  readonly confirm: ConfirmFunction | undefined;
}

const NO_OPTIONS: ExecuteOptions = Object.freeze({});

/** Placeholder services of a context not yet set up (never seen by a handler). */
const NO_SERVICES = new ToolServices();

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
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

  // Set once by `init` (a context serves exactly one attempt); placeholders until then.
  callId = '';
  sessionId = '';
  attempt = 0;
  services: ToolServices = NO_SERVICES;
  declare readonly signal: AbortSignal;
  emit: (event: ToolEvent) => void = SILENT_EMIT;
  confirm: (
    request: Omit<ConfirmationRequest, 'sessionId' | 'toolId'> & { toolId?: string },
  ) => Promise<ConfirmationDecision> = denyConfirm;
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
  init(
    toolId: string,
    call: CallState,
    attempt: number,
    services: ToolServices,
    signal: AbortSignal | undefined,
  ): this {
    this.callId = call.callId;
    this.sessionId = call.sessionId;
    this.attempt = attempt;
    this.services = services;
    this.#toolId = toolId;
    this.#confirmFn = call.confirm;
    this.#signal = signal;
    this.#external = signal !== undefined || call.signal !== NEVER_ABORTED;
    this.emit = call.emit;
    if (call.confirm) this.confirm = (request) => this.#confirmWith(request);
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

/** One call once admitted: what every attempt of it needs. */
interface CallRun {
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
   * undefined without run policies (v2).
   */
  readonly timeoutMs: number | undefined;
  readonly maxRetries: number;
  /** When the first attempt started: the time limit counts from there. Set by the first attempt. */
  firstStarted?: number;
}

/** The executor, as its attempts see it. */
interface AttemptHost {
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
class Attempt implements Deadlined {
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
    // Only a timed attempt races the caller's signal (v2 leaves that to the handler); the shared
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

/**
 * The TIMEOUT failure of a call that ran out of time. The limit covers every attempt of the call
 * together; after more than one attempt the message states the real time spent and the attempts.
 */
export function timeoutFailure(
  toolId: string,
  timeoutMs: number,
  elapsedMs: number = timeoutMs,
  attempts = 1,
): ToolFailure {
  const spent = Math.max(elapsedMs, timeoutMs);
  if (attempts <= 1 && spent === timeoutMs) {
    return failureResult(
      ToolErrorCode.TIMEOUT,
      `${toolId} did not finish within ${formatDuration(timeoutMs)} and was stopped.`,
      { details: { timeoutMs } },
    );
  }
  return failureResult(
    ToolErrorCode.TIMEOUT,
    `${toolId} did not finish within ${formatDuration(timeoutMs)} and was stopped after ${formatDuration(spent)} over ${attempts} attempt${attempts === 1 ? '' : 's'}.`,
    { details: { timeoutMs, elapsedMs: spent, attempts } },
  );
}

/**
 * The RATE_LIMITED failure of a call over its tool's quota: the caller's own, or with `shared` the
 * quota all callers of the tool share.
 */
export function rateLimitedFailure(
  toolId: string,
  ratePerMinute: number,
  retryAfterMs: number,
  options: { shared?: boolean } = {},
): ToolFailure {
  const scope = options.shared ? ' across all sessions' : '';
  return failureResult(
    ToolErrorCode.RATE_LIMITED,
    `${toolId} is limited to ${ratePerMinute} calls a minute${scope} and the quota is used up.`,
    {
      retryAfterMs,
      hint: `Wait ${formatDuration(retryAfterMs)} before calling ${toolId} again; avoid calling it in a loop.`,
      details: { ratePerMinute, ...(options.shared ? { shared: true } : {}) },
    },
  );
}

/**
 * How many callers' quotas the quota shared by all callers of a tool holds: one session alone
 * meets its own quota first (as with a single quota), and several sessions together meet the
 * shared one.
 */
export const SHARED_QUOTA_CALLERS = 4;

/**
 * The rate limiter's key of one caller's quota for a tool: the tool id and a digest of the
 * session id (so that a shared store's key names do not list session ids).
 */
export function callerQuotaKey(toolId: string, sessionId: string): string {
  return `${toolId}#caller:${digestId(sessionId)}`;
}

/** A short non-reversible digest of an id (two 32-bit FNV-1a hashes), for key names. */
function digestId(id: string): string {
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ id.length;
  for (let index = 0; index < id.length; index++) {
    const code = id.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193) >>> 0;
    second = Math.imul(second ^ code, 0x5bd1e995) >>> 0;
  }
  return first.toString(16).padStart(8, '0') + second.toString(16).padStart(8, '0');
}

/**
 * What the breaker is told of an attempt. A tool that only computes on its input (read-only, in a
 * closed world, such as `calculate`) and ran out of time did so because of that caller's input,
 * not because the tool is broken: the breaker, shared by every caller, is not told of a failure.
 */
function breakerOutcome(tool: RegisteredTool, result: ToolResult): ToolResult {
  if (result.ok || result.error.code !== ToolErrorCode.TIMEOUT) return result;
  const { readOnlyHint, openWorldHint } = tool.metadata.annotations;
  if (!readOnlyHint || openWorldHint) return result;
  return {
    ok: false,
    error: { ...result.error, details: { ...result.error.details, causedByInput: true } },
  };
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.ceil(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
