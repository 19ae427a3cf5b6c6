/** The options of the executor: its layers, each off when absent. */
import type { ToolClock } from '../contract/clock.js';
import type { ConfirmFunction } from '../contract/tool.js';
import type { CircuitBreakerLike } from '../policies/circuit-breaker.js';
import type { ToolEnvironmentGate } from '../policies/environment-gate.js';
import type { RateLimiterLike } from '../policies/rate-limiter.js';
import type { RetryClassifier } from '../policies/retry-classifier.js';
import type { ToolExecutionGate } from '../policies/tool-execution-gate.js';
import type { ToolRunPolicy } from '../policies/tool-run-policy.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolSuggester } from '../registry/tool-suggester.js';
import type { ToolUsageTracker } from '../registry/tool-usage-tracker.js';
import type { SettledCall } from './settled-call.js';
import type { ToolCallIds } from './tool-call-ids.js';
import type { ToolTraceRecorder } from './trace-recorder.js';

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

/**
 * Options for {@link createToolExecutor}: the registry, then the layers of the pipeline. Every
 * layer is off when its option is absent; with none, a call is lookup, risk gate (allow-all by
 * default), argument checks and the handler.
 */
export interface ToolExecutorOptions {
  /** The tools the executor runs. */
  registry: ToolRegistry;
  /** The risk gate (permissions and confirmations); lets everything through when absent. */
  gate?: ToolExecutionGate;
  /** Aggregates usage; a fresh tracker when absent. */
  usageTracker?: ToolUsageTracker;
  /** Suggests close ids for unknown tools; a default suggester when absent. */
  suggester?: ToolSuggester;
  /** Answers tool-level confirmations (e.g. a shell command); every request is denied when absent. */
  confirm?: ConfirmFunction;
  /** Generates call ids; sequential ids when absent. */
  callIds?: ToolCallIds;
  /** Clock for latency, in ms. Default: the `clock`'s `now`. */
  now?: () => number;
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
  /** Enforces timeouts and retries of run policies. Off when absent: a call has one attempt, untimed. */
  runPolicies?: RunPolicyOptions;
  /** Clock for timeouts and backoff waits. Default: the system clock. */
  clock?: ToolClock;
  /**
   * Told of every call once it has its final result (an unknown tool, a refused call, a batch
   * step included), with the gate's decision; for audit logs. It must not throw or block; what
   * it throws is ignored. Off when absent (and then a call collects no decision).
   */
  onSettled?: (call: SettledCall) => void;
  /**
   * Each principal's own quota of calls a minute, all tools together, taken from `rateLimiter`
   * (so shared across replicas when it is) or else a limiter of this executor; one principal
   * using it up leaves the others theirs. Calls without a principal are not counted. Off when
   * absent.
   */
  principalQuota?: { readonly ratePerMinute: number };
}
