import { SYSTEM_CLOCK, type ToolClock } from '../contract/clock.js';
import { ToolErrorCode } from '../contract/tool-error.js';
import { circuitOpenFailure } from '../contract/tool-failures.js';
import type { ToolFailure, ToolResult } from '../contract/tool-result.js';

/** The three breaker states. */
export type CircuitState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

/** The outcome of {@link ToolCircuitBreaker.check}. */
export type CircuitDecision =
  | {
      readonly allowed: true;
      /** Whether this call is the single HALF_OPEN probe. */
      readonly probe: boolean;
    }
  | { readonly allowed: false; readonly failure: ToolFailure };

/** One tool's breaker, as plain JSON for dashboards. */
export interface CircuitBreakerState {
  readonly toolId: string;
  readonly state: CircuitState;
  /** Consecutive infrastructure failures counted so far. */
  readonly consecutiveFailures: number;
  /** The cooldown that applies to the current (or next) OPEN period, in ms. */
  readonly cooldownMs: number;
  /** Time until the next probe is allowed, in ms (0 unless OPEN). */
  readonly probeInMs: number;
  /** The failure that last counted. */
  readonly lastError?: { readonly code: string; readonly message: string };
}

/**
 * What the executor needs of a circuit breaker. The in-process {@link ToolCircuitBreaker} decides
 * synchronously; a breaker shared between processes may answer `check` with a promise (the
 * executor then waits for it), and must settle it within a bounded time.
 */
export interface CircuitBreakerLike {
  /** Decides whether a call of `toolId` may run now. */
  check(toolId: string): CircuitDecision | PromiseLike<CircuitDecision>;
  /** Records the outcome of a call that `check` allowed; never throws, never waits. */
  record(toolId: string, result: ToolResult): void;
  /** Every circuit that has seen a failure, sorted by tool id. */
  snapshot(): CircuitBreakerState[];
}

/** What {@link circuitOpenFailure} says about a circuit that refuses a call. */
export interface OpenCircuitView {
  /** `OPEN` (cooling down) or `HALF_OPEN` (a probe is running). */
  readonly state: CircuitState;
  /** Consecutive infrastructure failures counted. */
  readonly failures: number;
  /** The current cooldown, in ms. */
  readonly cooldownMs: number;
  /** The failure that last counted. */
  readonly lastError: { readonly code: string; readonly message: string } | undefined;
}

/** Options for {@link ToolCircuitBreaker}. */
export interface ToolCircuitBreakerOptions {
  /** Consecutive infrastructure failures that open the circuit. Default 5. */
  failureThreshold?: number;
  /** First cooldown before a probe, in ms. Default 30 000. */
  cooldownMs?: number;
  /** Cap of the cooldown, which doubles after each failed probe, in ms. Default 300 000. */
  maxCooldownMs?: number;
  /** Clock for cooldowns. Default: the system clock. */
  clock?: ToolClock;
}

interface Circuit {
  state: CircuitState;
  failures: number;
  cooldownMs: number;
  openedAt: number;
  probeStartedAt: number;
  lastError: { code: string; message: string } | undefined;
}

const ALLOWED: CircuitDecision = Object.freeze({ allowed: true, probe: false });
const PROBE: CircuitDecision = Object.freeze({ allowed: true, probe: true });

/**
 * Whether a failure says the tool's infrastructure is broken (timeouts, I/O errors, crashes) rather
 * than giving a domain answer (not found, bad arguments, refused). Only the former count. An
 * EXECUTION_FAILED the tool marked `retryable: false` (an HTTP 404, a checksum mismatch) is a
 * definite answer, not a broken tool; a caller's cancellation never counts. Nor does a failure the
 * tool marked `details.targetScoped: true` (one target of the tool, one repository or page, is
 * stalled or broken, which must not pause the tool for every other target), nor one marked
 * `causedByInput` (a pure computation that ran out of time on one caller's input).
 */
export function isInfrastructureFailure(failure: ToolFailure): boolean {
  const { code, details, retryable } = failure.error;
  if (details?.cancelled === true || details?.targetScoped === true) return false;
  if (details?.causedByInput === true) return false;
  if (code === ToolErrorCode.TIMEOUT || code === ToolErrorCode.UNKNOWN) return true;
  return code === ToolErrorCode.EXECUTION_FAILED && retryable;
}

/**
 * A per-tool circuit breaker, lazy (no timers; `check()` evaluates the state):
 * CLOSED → N consecutive infrastructure failures → OPEN → cooldown → HALF_OPEN (one probe) →
 * success: CLOSED, failure: OPEN with the cooldown doubled (capped at `maxCooldownMs`).
 */
export class ToolCircuitBreaker implements CircuitBreakerLike {
  readonly #clock: ToolClock;
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #maxCooldownMs: number;
  readonly #circuits = new Map<string, Circuit>();

  constructor(options: ToolCircuitBreakerOptions = {}) {
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#threshold = Math.max(1, options.failureThreshold ?? 5);
    this.#cooldownMs = Math.max(0, options.cooldownMs ?? 30_000);
    this.#maxCooldownMs = Math.max(this.#cooldownMs, options.maxCooldownMs ?? 300_000);
  }

  /** Decides whether a call of `toolId` may run now. */
  check(toolId: string): CircuitDecision {
    const circuit = this.#circuits.get(toolId);
    if (!circuit || circuit.state === 'CLOSED') return ALLOWED;
    const now = this.#clock.now();
    if (circuit.state === 'OPEN') {
      const remaining = circuit.openedAt + circuit.cooldownMs - now;
      if (remaining > 0) return { allowed: false, failure: this.#deny(toolId, circuit, remaining) };
      circuit.state = 'HALF_OPEN';
      circuit.probeStartedAt = now;
      return PROBE;
    }
    // HALF_OPEN: one probe at a time; a probe that never reported within a cooldown is replaced.
    if (now - circuit.probeStartedAt >= circuit.cooldownMs) {
      circuit.probeStartedAt = now;
      return PROBE;
    }
    return { allowed: false, failure: this.#deny(toolId, circuit, 0) };
  }

  /** Records the outcome of a call that `check` allowed. */
  record(toolId: string, result: ToolResult): void {
    const circuit = this.#circuits.get(toolId);
    if (result.ok || !isInfrastructureFailure(result)) {
      if (circuit) {
        circuit.state = 'CLOSED';
        circuit.failures = 0;
        circuit.cooldownMs = this.#cooldownMs;
      }
      return;
    }
    const lastError = { code: result.error.code, message: result.error.message };
    if (!circuit) {
      const created: Circuit = {
        state: 'CLOSED',
        failures: 1,
        cooldownMs: this.#cooldownMs,
        openedAt: 0,
        probeStartedAt: 0,
        lastError,
      };
      this.#circuits.set(toolId, created);
      if (created.failures >= this.#threshold) this.#open(created);
      return;
    }
    circuit.lastError = lastError;
    circuit.failures += 1;
    if (circuit.state === 'HALF_OPEN') {
      circuit.cooldownMs = Math.min(this.#maxCooldownMs, circuit.cooldownMs * 2);
      this.#open(circuit);
    } else if (circuit.state === 'CLOSED' && circuit.failures >= this.#threshold) {
      this.#open(circuit);
    }
  }

  /** The state of one tool's circuit (CLOSED for tools never seen). */
  stateOf(toolId: string): CircuitState {
    const circuit = this.#circuits.get(toolId);
    if (!circuit) return 'CLOSED';
    if (circuit.state === 'OPEN' && this.#clock.now() >= circuit.openedAt + circuit.cooldownMs) {
      return 'HALF_OPEN';
    }
    return circuit.state;
  }

  /** Every circuit that has seen a failure, sorted by tool id. */
  snapshot(): CircuitBreakerState[] {
    const now = this.#clock.now();
    return [...this.#circuits.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([toolId, circuit]) => ({
        toolId,
        state: this.stateOf(toolId),
        consecutiveFailures: circuit.failures,
        cooldownMs: circuit.cooldownMs,
        probeInMs:
          circuit.state === 'OPEN' ? Math.max(0, circuit.openedAt + circuit.cooldownMs - now) : 0,
        ...(circuit.lastError ? { lastError: { ...circuit.lastError } } : {}),
      }));
  }

  /** Closes every circuit. */
  reset(): void {
    this.#circuits.clear();
  }

  #open(circuit: Circuit): void {
    circuit.state = 'OPEN';
    circuit.openedAt = this.#clock.now();
  }

  #deny(toolId: string, circuit: Circuit, remainingMs: number): ToolFailure {
    return circuitOpenFailure(toolId, circuit, remainingMs);
  }
}
