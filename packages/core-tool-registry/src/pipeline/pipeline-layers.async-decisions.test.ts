import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolErrorCode } from '../contract/tool-error.js';
import { circuitOpenFailure } from '../contract/tool-failures.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { failureResult, renderResult, type ToolResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import {
  type CircuitBreakerLike,
  type CircuitDecision,
  ToolCircuitBreaker,
} from '../policies/circuit-breaker.js';
import type { RateLimitDecision, RateLimiterLike } from '../policies/rate-limiter.js';
import { ToolRateLimiter } from '../policies/rate-limiter.js';
import { RunPolicies } from '../policies/tool-run-policy.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock } from '../testing/fake-clock.js';
import { defineTestTool } from '../testing/test-tool.js';
import { createToolExecutor } from './pipeline-tool-executor.js';
import { ToolTraceRecorder } from './trace-recorder.js';

// Asynchronous limiters and breakers stand for the shared (Redis) ones: these wrap the in-process
// implementations behind a promise, so the texts must be exactly those of the synchronous path.

function counter(results: ToolResult[]) {
  const state = { calls: 0 };
  const tool = defineTestTool({
    id: 'web_fetch',
    inputSchema: ToolSchema.object({ n: z.number().optional() }),
    metadata: {
      category: 'network',
      risk: 'LOW',
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: { ...RunPolicies.network, ratePerMinute: 2, maxRetries: 0 },
    execute() {
      state.calls += 1;
      return results[Math.min(state.calls - 1, results.length - 1)] as ToolResult;
    },
  });
  const registry = new ToolRegistry();
  registry.register(tool);
  return { registry, state };
}

class AsyncLimiter implements RateLimiterLike {
  readonly inner: ToolRateLimiter;
  constructor(clock: FakeClock) {
    this.inner = new ToolRateLimiter({ clock });
  }
  tryAcquire(toolId: string, rate: number | undefined): Promise<RateLimitDecision> {
    return Promise.resolve().then(() => this.inner.tryAcquire(toolId, rate));
  }
  snapshot() {
    return this.inner.snapshot();
  }
}

class AsyncBreaker implements CircuitBreakerLike {
  readonly inner: ToolCircuitBreaker;
  constructor(clock: FakeClock) {
    this.inner = new ToolCircuitBreaker({ clock, failureThreshold: 2 });
  }
  check(toolId: string): Promise<CircuitDecision> {
    return Promise.resolve().then(() => this.inner.check(toolId));
  }
  record(toolId: string, result: ToolResult): void {
    this.inner.record(toolId, result);
  }
  snapshot() {
    return this.inner.snapshot();
  }
}

const ok: ToolResult = { ok: true, content: 'ok' };
const crash = failureResult(ToolErrorCode.EXECUTION_FAILED, 'connection reset');

describe('PipelineToolExecutor with asynchronous decisions', () => {
  it('refuses with the same RATE_LIMITED text when the limiter answers with a promise', async () => {
    const clock = new FakeClock();
    const { registry, state } = counter([ok]);
    const traces = new ToolTraceRecorder({ clock });
    const executor = createToolExecutor({
      registry,
      clock,
      traces,
      rateLimiter: new AsyncLimiter(clock),
      runPolicies: {},
    });
    expect((await executor.execute('web_fetch', {})).ok).toBe(true);
    expect((await executor.execute('web_fetch', {})).ok).toBe(true);
    const refused = await executor.execute('web_fetch', {});
    expect(state.calls).toBe(2);
    expect(renderResult(refused)).toBe(
      'Error: [RATE_LIMITED] web_fetch is limited to 2 calls a minute and the quota is used up.\nRetry after: 30 s\nNext: Wait 30 s before calling web_fetch again; avoid calling it in a loop.',
    );
    expect(traces.spans().map((span) => [span.attempt, span.outcome])).toEqual([
      [1, 'ok'],
      [1, 'ok'],
      [0, 'RATE_LIMITED'],
    ]);
  });

  it('refuses with the breaker denial when the breaker answers with a promise', async () => {
    const clock = new FakeClock();
    const { registry, state } = counter([crash]);
    const executor = createToolExecutor({
      registry,
      clock,
      circuitBreaker: new AsyncBreaker(clock),
      runPolicies: {},
    });
    await executor.execute('web_fetch', {});
    await executor.execute('web_fetch', {});
    const denied = await executor.execute('web_fetch', {});
    expect(state.calls).toBe(2);
    expect(renderResult(denied)).toBe(
      'Error: [CIRCUIT_OPEN] web_fetch is paused after 2 consecutive failures. Last error: [EXECUTION_FAILED] connection reset. The next probe is allowed in 30 s.\nRetry after: 30 s\nNext: Do not retry web_fetch immediately; use another approach, or wait for the probe.',
    );
  });

  it('returns a failure, never a rejection, when an asynchronous limiter rejects', async () => {
    const { registry, state } = counter([ok]);
    const executor = createToolExecutor({
      registry,
      rateLimiter: {
        tryAcquire: () => Promise.reject(new Error('limiter exploded')),
        snapshot: () => [],
      },
    });
    const result = await executor.execute('web_fetch', {});
    expect(result.ok).toBe(false);
    expect(state.calls).toBe(0);
  });

  it('runs the tool after an asynchronous breaker allows it', async () => {
    const clock = new FakeClock();
    const { registry, state } = counter([ok]);
    const executor = createToolExecutor({
      registry,
      clock,
      circuitBreaker: new AsyncBreaker(clock),
      rateLimiter: new AsyncLimiter(clock),
    });
    expect(await executor.execute('web_fetch', {})).toEqual(ok);
    expect(state.calls).toBe(1);
  });
});

describe('circuitOpenFailure', () => {
  it('says a probe is running when no countdown is left', () => {
    const failure = circuitOpenFailure(
      'web_fetch',
      { state: 'HALF_OPEN', failures: 5, cooldownMs: 60_000, lastError: undefined },
      0,
    );
    expect(failure.error.message).toBe(
      'web_fetch is paused after 5 consecutive failures. Last error: unknown. A probe call is running now.',
    );
    expect(failure.error.retryAfterMs).toBe(60_000);
  });
});
