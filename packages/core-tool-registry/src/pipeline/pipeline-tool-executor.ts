/**
 * The executor: one class for every deployment, its layers (environment gate, rate limits,
 * circuit breaker, run policies, traces) switched on by the options of {@link createToolExecutor}.
 */
import { checkArgumentLimits } from '../contract/argument-limits.js';
import { SYSTEM_CLOCK, sleep, type ToolClock } from '../contract/clock.js';
import { findIgnoredArguments, withIgnoredArguments } from '../contract/ignored-arguments.js';
import type { ConfirmFunction, RegisteredTool } from '../contract/tool.js';
import type { ExecuteOptions, ToolExecutor } from '../contract/tool-executor.js';
import {
  cancelledFailure,
  failureFromThrown,
  offToolFailure,
  principalQuotaFailure,
  rateLimitedFailure,
  timeoutFailure,
} from '../contract/tool-failures.js';
import type { ToolFailure, ToolResult } from '../contract/tool-result.js';
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
  callRisk,
  type GateVerdict,
  type ToolExecutionGate,
} from '../policies/tool-execution-gate.js';
import { RunPolicies, type ToolRunPolicy } from '../policies/tool-run-policy.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { ToolSuggester } from '../registry/tool-suggester.js';
import { ToolUsageTracker } from '../registry/tool-usage-tracker.js';
import { Attempt, type AttemptHost, type CallRun, isPromiseLike } from './attempt.js';
import { AttemptContext, type CallState, NEVER_ABORTED } from './attempt-context.js';
import {
  callerQuotaKey,
  principalQuotaKey,
  SHARED_QUOTA_CALLERS,
  toolCounterKey,
} from './caller-quota.js';
import { DeadlineWatch } from './deadline-watch.js';
import { breakerOutcome, lookupTool, parseRawArguments, safeEmitter } from './execution-steps.js';
import type { RunPolicyOptions, ToolExecutorOptions } from './executor-options.js';
import {
  type DecisionRecord,
  notifySettled,
  observedConfirm,
  type SettledCall,
} from './settled-call.js';
import { ToolCallIds } from './tool-call-ids.js';
import type { OpenSpan, ToolTraceRecorder } from './trace-recorder.js';

export type { RunPolicyOptions, ToolExecutorOptions };

/** The tool's own questions when the configuration allows all its actions: allowed, once each. */
const answeredByConfiguration: ConfirmFunction = () => Promise.resolve('allow_once');

const LEGACY: ToolRunPolicy = RunPolicies.legacy;

/**
 * The tool pipeline, in this fixed order: lookup (miss → suggestions) → environment gate
 * (fail-open) → risk gate → argument checks and schema validation → rate limiter → circuit
 * breaker → timeout + retry → tool → result budget. Every layer but lookup and validation is an
 * option of {@link createToolExecutor}. Nothing thrown ever leaves `execute`.
 */
export class PipelineToolExecutor implements ToolExecutor {
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
  readonly #confirm: ConfirmFunction | undefined;
  readonly #callIds: ToolCallIds;
  readonly #now: () => number;
  readonly #clock: ToolClock;
  readonly #policies: RunPolicyOptions | undefined;
  readonly #classifier: RetryClassifier;
  readonly #random: () => number;
  readonly #onSettled: ((call: SettledCall) => void) | undefined;
  readonly #principalRate: number | undefined;
  /** Each caller's own quota of each rate-limited tool (see `#admit`). */
  readonly #callerQuotas: ToolRateLimiter;
  /** The next attempt's context, made ahead of time (see {@link AttemptContext}). */
  #spareContext: AttemptContext | undefined;
  /** What attempts call back into: one object per executor, so an attempt allocates no closures. */
  readonly #host: AttemptHost;

  constructor(options: ToolExecutorOptions) {
    this.registry = options.registry;
    this.usageTracker = options.usageTracker ?? new ToolUsageTracker();
    this.traces = options.traces;
    this.rateLimiter = options.rateLimiter;
    this.circuitBreaker = options.circuitBreaker;
    this.environmentGate = options.environmentGate;
    this.#gate = options.gate ?? ALLOW_ALL_GATE;
    this.#suggester = options.suggester ?? new ToolSuggester();
    this.#confirm = options.confirm;
    this.#callIds = options.callIds ?? new ToolCallIds();
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#callerQuotas = new ToolRateLimiter({ clock: this.#clock });
    const clock = this.#clock;
    this.#now = options.now ?? (() => clock.now());
    this.#policies = options.runPolicies;
    this.#classifier = options.runPolicies?.classifier ?? new RetryClassifier();
    this.#random = options.runPolicies?.random ?? Math.random;
    this.#onSettled = options.onSettled;
    const principalRate = options.principalQuota?.ratePerMinute;
    this.#principalRate =
      principalRate !== undefined && principalRate > 0 ? principalRate : undefined;
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
    const observer = this.#onSettled;
    if (!observer) return this.#execute(id, rawArgs, options, undefined);
    const started = this.#now();
    const record: DecisionRecord = { decision: 'not-reached' };
    const callId = options.callId ?? this.#callIds.next();
    const observed = { ...options, callId };
    return this.#execute(id, rawArgs, observed, record).then((result) => {
      notifySettled(observer, {
        callId,
        toolId: String(id),
        sessionId: options.sessionId ?? 'default',
        principal: options.principal,
        risk: record.risk,
        decision: record.decision,
        deniedBy: record.deniedBy,
        rawArgs,
        result,
        durationMs: this.#now() - started,
      });
      return result;
    });
  }

  #execute(
    id: string,
    rawArgs: unknown,
    options: ExecuteOptions,
    record: DecisionRecord | undefined,
  ): Promise<ToolResult> {
    const signal = options.signal ?? NEVER_ABORTED;
    // Not async: the steps before the tool run synchronously, and the caller awaits the promise of
    // the run itself. Every async layer costs a turn of the event loop's job queue on each call,
    // which a remote call pays cold, with the caches emptied by the wait for its answer.
    try {
      let tool = typeof id === 'string' ? this.registry.get(id, options.principal) : undefined;
      if (!tool) {
        const found = lookupTool(this.registry, this.#suggester, id, options.principal);
        if (!found.ok) return this.#notServed(String(id), found.failure);
        tool = found.tool;
      }
      const started = this.#now();
      const call: CallState = {
        callId: options.callId ?? this.#callIds.next(),
        sessionId: options.sessionId ?? 'default',
        ...(options.principal ? { principal: options.principal } : {}),
        signal,
        emit: safeEmitter(options.onEvent),
        confirm: observedConfirm(options.confirm ?? this.#confirm, record),
        ...(options.requestInput ? { requestInput: options.requestInput } : {}),
        ...(record ? { decision: record } : {}),
      };
      if (record) record.risk = callRisk(tool, rawArgs);
      if (this.environmentGate) {
        const environment = this.environmentGate.check(tool, rawArgs);
        if (!environment.allowed) {
          return this.#refuse(tool, call, rawArgs, environment.failure, started);
        }
      }
      // Gates that decide synchronously (policy or remembered state) cost no extra turn.
      const checked = this.#gate.check(tool, rawArgs, {
        sessionId: call.sessionId,
        principal: call.principal,
        callId: call.callId,
        signal,
        confirm: call.confirm,
      });
      if (isPromiseLike(checked)) return this.#afterGate(checked, tool, rawArgs, call, started);
      return this.#admit(checked, tool, rawArgs, call, started);
    } catch (thrown) {
      return Promise.resolve(failureFromThrown(thrown, signal));
    }
  }

  /** The failure for an id no tool here has: why it is off, when it exists but is off here. */
  async #notServed(id: string, unknown: ToolFailure): Promise<ToolResult> {
    const off = await this.registry.off.find(id);
    return off ? offToolFailure(off) : unknown;
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
    gated: CallState,
    started: number,
  ): Promise<ToolResult> {
    const record = gated.decision;
    if (!verdict.allowed) {
      if (record) {
        record.decision = 'denied';
        record.deniedBy = verdict.deniedBy;
      }
      return this.#refuse(tool, gated, rawArgs, verdict.result, started);
    }
    if (record) record.decision = verdict.asked ? 'asked-and-allowed' : 'allowed';
    const call = verdict.preapproved ? { ...gated, confirm: answeredByConfiguration } : gated;
    let argsObject: Record<string, unknown>;
    if (typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs)) {
      argsObject = rawArgs as Record<string, unknown>;
    } else {
      const parsedArgs = parseRawArguments(rawArgs);
      if (!parsedArgs.ok) {
        return this.#refuse(tool, call, rawArgs, parsedArgs.failure, started);
      }
      argsObject = parsedArgs.value;
    }
    const overLimit = checkArgumentLimits(tool, argsObject);
    if (overLimit) return this.#refuse(tool, call, rawArgs, overLimit, started);
    const fields = tool.inputSchema.declaredFields;
    const ignored = fields ? findIgnoredArguments(fields, argsObject) : [];
    if (fields && ignored.length > 0) {
      const noted = (result: ToolResult) => withIgnoredArguments(result, tool.id, ignored, fields);
      return this.#validated(tool, argsObject, rawArgs, call, started).then(noted);
    }
    return this.#validated(tool, argsObject, rawArgs, call, started);
  }

  /** After the argument checks: schema validation, rate limiter, then the run. May throw. */
  #validated(
    tool: RegisteredTool,
    argsObject: Record<string, unknown>,
    rawArgs: unknown,
    call: CallState,
    started: number,
  ): Promise<ToolResult> {
    const validated = tool.inputSchema.parse(argsObject);
    if (!validated.ok) {
      return this.#refuse(tool, call, rawArgs, validated.failure, started);
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
    const principal = call.principal;
    const principalRate = this.#principalRate;
    if (principal && principalRate !== undefined) {
      const limiter = this.rateLimiter ?? this.#callerQuotas;
      const own = limiter.tryAcquire(principalQuotaKey(principal), principalRate);
      if (isPromiseLike(own)) return this.#afterPrincipalQuota(own, run, principalRate);
      if (!own.allowed) return this.#refusePrincipal(run, principalRate, own.retryAfterMs);
    }
    return this.#limitTool(run);
  }

  /** The rest of `#validated` once a shared limiter has decided the principal's quota. */
  async #afterPrincipalQuota(
    pending: PromiseLike<RateLimitDecision>,
    run: CallRun,
    rate: number,
  ): Promise<ToolResult> {
    try {
      const decision = await pending;
      if (!decision.allowed) return await this.#refusePrincipal(run, rate, decision.retryAfterMs);
      return await this.#limitTool(run);
    } catch (thrown) {
      return failureFromThrown(thrown, run.call.signal);
    }
  }

  #refusePrincipal(run: CallRun, rate: number, retryAfterMs: number): Promise<ToolResult> {
    const failure = principalQuotaFailure(run.call.principal?.id ?? '', rate, retryAfterMs);
    return this.#refuse(run.tool, run.call, run.rawArgs, failure, run.started);
  }

  /** The tool's own quotas (the caller's, then the shared one), then the run. May throw. */
  #limitTool(run: CallRun): Promise<ToolResult> {
    const { tool, call, policy } = run;
    const rate = policy.ratePerMinute;
    if (this.rateLimiter && rate !== undefined && rate > 0) {
      // The caller's own quota first, so that one session using its quota up leaves the shared
      // one (a few callers' worth) to the others. It is kept in this process: a session is served
      // by one replica, so only the quota all callers share needs the shared store.
      const callerKey = callerQuotaKey(toolCounterKey(tool), call.sessionId);
      const own = this.#callerQuotas.tryAcquire(callerKey, rate);
      if (!own.allowed) return this.#refuseRate(run, own.retryAfterMs, 'caller');
      const shared = this.rateLimiter.tryAcquire(toolCounterKey(tool), rate * SHARED_QUOTA_CALLERS);
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
    return this.#refuse(tool, call, run.rawArgs, failure, run.started);
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
      const decision = this.circuitBreaker.check(toolCounterKey(tool));
      if (isPromiseLike(decision)) return this.#afterBreaker(decision, run, number);
      if (!decision.allowed) {
        return this.#refuse(tool, call, run.rawArgs, decision.failure, run.started);
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
        return await this.#refuse(run.tool, run.call, run.rawArgs, decision.failure, run.started);
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
      context = this.#newContext().init(tool.id, call, number, undefined);
      context.limit(this.#clock, deadline);
    } else {
      // Untimed: the caller's signal as is; without one, a fresh signal made on first use,
      // never the shared never-aborted one, so leftover listeners cannot pile up.
      const signal = call.signal === NEVER_ABORTED ? undefined : call.signal;
      context = this.#newContext().init(tool.id, call, number, signal);
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
      principal: run.call.principal?.id,
      principalKind: run.call.principal?.kind,
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
    this.circuitBreaker?.record(toolCounterKey(tool), breakerOutcome(tool, result));
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
    call: CallState,
    rawArgs: unknown,
    failure: ToolFailure,
    started: number,
  ): Promise<ToolResult> {
    const traces = this.traces;
    if (traces) {
      const now = this.#clock.now();
      traces.record({
        callId: call.callId,
        principal: call.principal?.id,
        principalKind: call.principal?.kind,
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

const NO_OPTIONS: ExecuteOptions = Object.freeze({});

/**
 * Builds the executor for a registry. With only `registry` it runs lookup, the argument checks and
 * the handler; each further option switches one layer of the pipeline on (see
 * {@link ToolExecutorOptions}). Hosts, package test harnesses and examples all build it here.
 */
export function createToolExecutor(options: ToolExecutorOptions): PipelineToolExecutor {
  return new PipelineToolExecutor(options);
}
