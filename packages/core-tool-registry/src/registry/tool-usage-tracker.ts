import type { ToolResult } from '../contract/tool-result.js';

/** Usage figures for one tool. */
export interface ToolUsage {
  readonly toolId: string;
  readonly calls: number;
  readonly successes: number;
  readonly failures: number;
  /** Sum of call latencies in ms. */
  readonly totalLatencyMs: number;
  readonly averageLatencyMs: number;
  readonly maxLatencyMs: number;
  /** The most recent failure: code, message and when. */
  readonly lastError?: { readonly code: string; readonly message: string; readonly at: number };
  readonly lastCalledAt?: number;
}

interface MutableUsage {
  calls: number;
  successes: number;
  failures: number;
  totalLatencyMs: number;
  maxLatencyMs: number;
  lastError?: { code: string; message: string; at: number };
  lastCalledAt?: number;
}

/** Per-tool counters: calls, successes, failures, latency and the last error. */
export class ToolUsageTracker {
  readonly #usage = new Map<string, MutableUsage>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Records one finished call. */
  record(toolId: string, result: ToolResult, latencyMs: number): void {
    let usage = this.#usage.get(toolId);
    if (!usage) {
      usage = { calls: 0, successes: 0, failures: 0, totalLatencyMs: 0, maxLatencyMs: 0 };
      this.#usage.set(toolId, usage);
    }
    const at = this.#now();
    usage.calls += 1;
    usage.totalLatencyMs += latencyMs;
    usage.maxLatencyMs = Math.max(usage.maxLatencyMs, latencyMs);
    usage.lastCalledAt = at;
    if (result.ok) usage.successes += 1;
    else {
      usage.failures += 1;
      usage.lastError = { code: result.error.code, message: result.error.message, at };
    }
  }

  /** Figures for one tool, or undefined when it was never called. */
  get(toolId: string): ToolUsage | undefined {
    const usage = this.#usage.get(toolId);
    return usage ? snapshot(toolId, usage) : undefined;
  }

  /** Figures for every tool called so far, sorted by id. */
  snapshot(): ToolUsage[] {
    return [...this.#usage.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, usage]) => snapshot(id, usage));
  }

  /** Forgets everything. */
  reset(): void {
    this.#usage.clear();
  }
}

function snapshot(toolId: string, usage: MutableUsage): ToolUsage {
  return {
    toolId,
    ...usage,
    averageLatencyMs: usage.calls === 0 ? 0 : usage.totalLatencyMs / usage.calls,
  };
}
