import { SYSTEM_CLOCK, type ToolClock } from '../contract/clock.js';
import type { RegisteredTool } from '../contract/tool.js';
import { environmentBlockedFailure } from '../contract/tool-failures.js';
import type { ToolFailure } from '../contract/tool-result.js';

/** One observed environment signal and when it was observed. */
export interface EnvironmentObservation {
  /** The observed value (e.g. `true` for "IME shown", a package name). */
  readonly value: unknown;
  /** When it was observed, on the state's clock (ms). */
  readonly at: number;
}

/**
 * A precondition a tool declares on the environment, e.g. "a text input tool needs the keyboard shown".
 * Missing or stale telemetry never blocks (fail-open).
 */
export interface ToolEnvironmentRule {
  /** Telemetry key, e.g. `ime.shown` or `foreground.package`. */
  readonly signal: string;
  /** Whether the observed value blocks this call (the raw arguments are given for context). */
  readonly blocks: (value: unknown, rawArgs: unknown) => boolean;
  /** What is wrong, for the model, e.g. "The on-screen keyboard is not shown." */
  readonly message: string;
  /** The fix, e.g. "Tap an input field first (ui_tap), then call input_text again." */
  readonly hint: string;
  /** Observations older than this are ignored, in ms. Default: the gate's `maxAgeMs`. */
  readonly maxAgeMs?: number;
}

/** Options for {@link ToolEnvironmentState}. */
export interface ToolEnvironmentStateOptions {
  /** Clock that time-stamps observations. Default: the system clock. */
  clock?: ToolClock;
}

/** Time-stamped environment telemetry (IME shown, foreground package …), fed by the host. */
export class ToolEnvironmentState {
  readonly #clock: ToolClock;
  readonly #observations = new Map<string, EnvironmentObservation>();

  constructor(options: ToolEnvironmentStateOptions = {}) {
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  /** The state's clock (the gate measures age on it). */
  get clock(): ToolClock {
    return this.#clock;
  }

  /** Records an observation now (or at `at`). */
  set(signal: string, value: unknown, at: number = this.#clock.now()): void {
    this.#observations.set(signal, { value, at });
  }

  /** The latest observation of a signal, if any. */
  get(signal: string): EnvironmentObservation | undefined {
    return this.#observations.get(signal);
  }

  /** Forgets a signal (or everything). */
  clear(signal?: string): void {
    if (signal === undefined) this.#observations.clear();
    else this.#observations.delete(signal);
  }
}

/** The outcome of {@link ToolEnvironmentGate.check}. */
export type EnvironmentVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly failure: ToolFailure };

/** Options for {@link ToolEnvironmentGate}. */
export interface ToolEnvironmentGateOptions {
  /** The telemetry to check against. */
  state: ToolEnvironmentState;
  /** Extra rules per tool id, for tools that do not declare `environmentRules` themselves. */
  rules?: Readonly<Record<string, readonly ToolEnvironmentRule[]>>;
  /** Observations older than this are ignored, in ms. Default 30 000. */
  maxAgeMs?: number;
}

const ALLOWED: EnvironmentVerdict = Object.freeze({ allowed: true });

/**
 * Checks a tool's environment rules before a call. Fail-open: a missing or stale observation, or a
 * rule that throws, lets the call through. A hit returns UNSUPPORTED with the rule's fix.
 */
export class ToolEnvironmentGate {
  readonly #state: ToolEnvironmentState;
  readonly #rules: Readonly<Record<string, readonly ToolEnvironmentRule[]>>;
  readonly #maxAgeMs: number;

  constructor(options: ToolEnvironmentGateOptions) {
    this.#state = options.state;
    this.#rules = options.rules ?? {};
    this.#maxAgeMs = options.maxAgeMs ?? 30_000;
  }

  /** Decides whether the environment allows the call. */
  check(tool: RegisteredTool, rawArgs: unknown): EnvironmentVerdict {
    const declared = tool.environmentRules;
    const extra = this.#rules[tool.id];
    if (!declared && !extra) return ALLOWED;
    for (const rule of [...(declared ?? []), ...(extra ?? [])]) {
      const observation = this.#state.get(rule.signal);
      if (!observation) continue;
      const ageMs = this.#state.clock.now() - observation.at;
      if (ageMs > (rule.maxAgeMs ?? this.#maxAgeMs)) continue;
      let blocked = false;
      try {
        blocked = rule.blocks(observation.value, rawArgs);
      } catch {
        blocked = false;
      }
      if (blocked) {
        return {
          allowed: false,
          failure: environmentBlockedFailure(tool.id, rule, { value: observation.value, ageMs }),
        };
      }
    }
    return ALLOWED;
  }
}
