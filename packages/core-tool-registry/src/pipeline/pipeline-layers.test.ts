import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnyToolDefinition, ToolContext, ToolEvent } from '../contract/tool.js';
import { ToolErrorCode } from '../contract/tool-error.js';
import { failureResult, renderResult, type ToolResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { ToolCircuitBreaker } from '../policies/circuit-breaker.js';
import { ToolEnvironmentGate, ToolEnvironmentState } from '../policies/environment-gate.js';
import { ToolRateLimiter } from '../policies/rate-limiter.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { RunPolicies, type ToolRunPolicy } from '../policies/tool-run-policy.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock, flushMicrotasks, sequenceRandom } from '../testing/fake-clock.js';
import { defineTestTool } from '../testing/test-tool.js';
import { createToolExecutor, type ToolExecutorOptions } from './pipeline-tool-executor.js';
import { ToolTraceRecorder } from './trace-recorder.js';

interface Scripted {
  calls: number;
  contexts: ToolContext[];
}

/** Fixture ids that reach outside the deployment, as the real tools of those names do. */
const OPEN_WORLD_FIXTURES = new Set(['web_fetch', 'input_text']);

/** A tool whose attempts follow a script: each entry is a result, or 'hang' (ignores its signal). */
function scriptedTool(
  id: string,
  script: Array<ToolResult | 'hang' | 'hang-until-aborted'>,
  options: { policy?: ToolRunPolicy; risk?: 'LOW' | 'MEDIUM' | 'HIGH'; readOnly?: boolean } = {},
): { tool: AnyToolDefinition; state: Scripted } {
  const state: Scripted = { calls: 0, contexts: [] };
  const risk = options.risk ?? 'LOW';
  const readOnly = options.readOnly ?? true;
  const tool = defineTestTool({
    id,
    description: 'scripted fixture',
    inputSchema: ToolSchema.object({ n: z.number().optional() }),
    metadata: {
      category: 'utility',
      risk,
      annotations: {
        readOnlyHint: readOnly,
        destructiveHint: !readOnly,
        idempotentHint: readOnly,
        openWorldHint: OPEN_WORLD_FIXTURES.has(id),
        sensitiveAction: risk === 'HIGH' || id === 'input_text',
      },
    },
    ...(options.policy ? { runPolicy: options.policy } : {}),
    execute(_args, context) {
      state.calls += 1;
      state.contexts.push(context);
      const step = script[Math.min(state.calls - 1, script.length - 1)];
      if (step === 'hang') return new Promise<ToolResult>(() => {});
      if (step === 'hang-until-aborted') {
        return new Promise<ToolResult>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        });
      }
      return step as ToolResult;
    },
  });
  return { tool, state };
}

const ok = (text = 'ok'): ToolResult => ({ ok: true, content: text });
const crash = failureResult(ToolErrorCode.EXECUTION_FAILED, 'connection reset');

/** An executor over `tools` on `clock` with the given layers. */
function executorOn(
  clock: FakeClock,
  tools: AnyToolDefinition[],
  layers: Partial<ToolExecutorOptions> = {},
) {
  const registry = new ToolRegistry();
  registry.registerAll(tools);
  return { registry, executor: createToolExecutor({ registry, clock, ...layers }) };
}

function setup(tools: AnyToolDefinition[], options: Partial<ToolExecutorOptions> = {}) {
  const clock = new FakeClock();
  const traces = new ToolTraceRecorder({ clock });
  const { registry, executor } = executorOn(clock, tools, {
    traces,
    runPolicies: { random: () => 0.5 },
    ...options,
  });
  return { clock, registry, traces, executor };
}

/** Records a call's result once it settles, so that a test can advance the clock meanwhile. */
function track(pending: Promise<ToolResult>): { result?: ToolResult } {
  const tracked: { result?: ToolResult } = {};
  void pending.then((result) => {
    tracked.result = result;
  });
  return tracked;
}

describe('PipelineToolExecutor: timeouts', () => {
  it('returns TIMEOUT on time even when the handler ignores its signal, and fires that signal', async () => {
    const { tool, state } = scriptedTool('slow_read', ['hang'], {
      policy: { ...RunPolicies.quickRead, maxRetries: 0 },
    });
    const { clock, executor } = setup([tool]);
    const call = track(executor.execute('slow_read', {}));
    await clock.advanceAsync(29_999);
    expect(call.result).toBeUndefined();
    await clock.advanceAsync(1);
    expect(call.result).toBeDefined();
    expect(renderResult(call.result as ToolResult)).toBe(
      'Error: [TIMEOUT] slow_read did not finish within 30 s and was stopped.\nNext: The call ran out of time; retry with a smaller request or a longer timeout.',
    );
    expect(state.contexts[0]?.signal.aborted).toBe(true);
    expect((state.contexts[0]?.signal.reason as Error | undefined)?.name).toBe('ToolError');
  });

  it('a handler that honours the signal ends with TIMEOUT too', async () => {
    const { tool } = scriptedTool('slow_read', ['hang-until-aborted'], {
      policy: { ...RunPolicies.quickRead, maxRetries: 0, timeoutMs: 1_000 },
    });
    const { clock, executor } = setup([tool]);
    const pending = executor.execute('slow_read', {});
    await clock.advanceAsync(1_000);
    const result = await pending;
    expect(!result.ok && result.error.code).toBe('TIMEOUT');
  });

  it('without run policies no timeout applies', async () => {
    const { tool } = scriptedTool('slow_read', ['hang'], { policy: RunPolicies.quickRead });
    const { clock, executor } = setup([tool], { runPolicies: undefined });
    const call = track(executor.execute('slow_read', {}));
    await clock.advanceAsync(60_000);
    expect(call.result).toBeUndefined();
    expect(clock.pendingTimers).toBe(0);
  });

  it('a caller cancelling a running attempt gets the cancelled result at once', async () => {
    const { tool, state } = scriptedTool('slow_read', ['hang'], { policy: RunPolicies.quickRead });
    const { executor } = setup([tool]);
    const controller = new AbortController();
    const pending = executor.execute('slow_read', {}, { signal: controller.signal });
    await flushMicrotasks();
    controller.abort();
    const result = await pending;
    expect(!result.ok && result.error.details).toEqual({ cancelled: true });
    expect(state.contexts[0]?.signal.aborted).toBe(true);
    expect(state.calls).toBe(1);
  });
});

describe('PipelineToolExecutor: retries', () => {
  it('retries a read-only tool after EXECUTION_FAILED with full-jitter backoff, one span per attempt', async () => {
    const { tool, state } = scriptedTool('web_fetch', [crash, crash, ok('page')], {
      policy: RunPolicies.network,
    });
    const { clock, executor, traces } = setup([tool], {
      runPolicies: { random: sequenceRandom([0.5, 0.25]) },
    });
    const events: ToolEvent[] = [];
    const pending = executor.execute('web_fetch', {}, { onEvent: (event) => events.push(event) });
    await flushMicrotasks();
    expect(state.calls).toBe(1);
    // network: base 500 ms; retry 1 waits random(0..1000) = 500 ms.
    await clock.advanceAsync(499);
    expect(state.calls).toBe(1);
    await clock.advanceAsync(1);
    expect(state.calls).toBe(2);
    // retry 2 waits random(0..2000) * 0.25 = 500 ms.
    await clock.advanceAsync(500);
    const result = await pending;
    expect(result).toEqual(ok('page'));
    expect(state.contexts.map((context) => context.attempt)).toEqual([1, 2, 3]);
    expect(new Set(state.contexts.map((context) => context.callId)).size).toBe(1);
    expect(traces.spans().map((span) => [span.attempt, span.outcome])).toEqual([
      [1, 'EXECUTION_FAILED'],
      [2, 'EXECUTION_FAILED'],
      [3, 'ok'],
    ]);
    expect(events).toEqual([
      {
        type: 'output',
        stream: 'log',
        text: 'web_fetch: attempt 1 failed (EXECUTION_FAILED); retrying in 500 ms.\n',
      },
      {
        type: 'output',
        stream: 'log',
        text: 'web_fetch: attempt 2 failed (EXECUTION_FAILED); retrying in 500 ms.\n',
      },
    ]);
  });

  it('a TIMEOUT uses up the time of the whole call: one deadline covers every attempt', async () => {
    const { tool, state } = scriptedTool('read_file', ['hang', ok('content')], {
      policy: RunPolicies.quickRead,
    });
    const { clock, executor, traces } = setup([tool]);
    const pending = executor.execute('read_file', {});
    await clock.advanceAsync(30_000);
    expect(state.calls).toBe(1);
    await clock.runAllAsync();
    const result = await pending;
    expect(state.calls).toBe(1);
    expect(renderResult(result)).toMatch(
      /^Error: \[TIMEOUT\] read_file did not finish within 30 s and was stopped\./,
    );
    expect(traces.spans().map((span) => [span.attempt, span.outcome])).toEqual([[1, 'TIMEOUT']]);
  });

  it('a retry gets what the earlier attempts left of the time limit, and the message says so', async () => {
    const { tool, state } = scriptedTool('read_file', [crash, 'hang', ok('content')], {
      policy: { ...RunPolicies.network, timeoutMs: 10_000 },
    });
    const { clock, executor } = setup([tool]);
    const call = track(executor.execute('read_file', {}));
    // network: base 500 ms; retry 1 waits random(0..1000) = 500 ms, then hangs.
    await clock.advanceAsync(500);
    expect(state.calls).toBe(2);
    await clock.advanceAsync(9_000);
    expect(call.result).toBeUndefined();
    await clock.advanceAsync(1_000);
    expect(call.result && renderResult(call.result)).toMatch(
      /^Error: \[TIMEOUT\] read_file did not finish within 10 s and was stopped after 10(\.\d)? s over 2 attempts\./,
    );
    await clock.runAllAsync();
    expect(state.calls).toBe(2);
  });

  it('stops after maxRetries and returns the last failure', async () => {
    const { tool, state } = scriptedTool('read_file', [crash], { policy: RunPolicies.quickRead });
    const { clock, executor } = setup([tool]);
    const pending = executor.execute('read_file', {});
    await clock.runAllAsync();
    expect(await pending).toEqual(crash);
    expect(state.calls).toBe(2);
  });

  it('never retries a tool that is not retry-safe', async () => {
    const { tool, state } = scriptedTool('send_mail', [crash, ok()], {
      policy: RunPolicies.network,
      readOnly: false,
    });
    const { clock, executor } = setup([tool]);
    const pending = executor.execute('send_mail', {});
    await clock.runAllAsync();
    expect(await pending).toEqual(crash);
    expect(state.calls).toBe(1);
  });

  it('a timeout of a tool that is not retry-safe is reported as outcome unknown and not replayed', async () => {
    const { tool, state } = scriptedTool('http_post', ['hang', ok()], {
      policy: { ...RunPolicies.network, timeoutMs: 5_000 },
      readOnly: false,
    });
    const { clock, executor } = setup([tool]);
    const pending = executor.execute('http_post', {});
    await clock.advanceAsync(5_000);
    await clock.runAllAsync();
    const result = await pending;
    expect(state.calls).toBe(1);
    expect(!result.ok && result.error.code).toBe('TIMEOUT');
    expect(!result.ok && result.error.details).toEqual({ timeoutMs: 5_000, outcomeUnknown: true });
    expect(renderResult(result)).toContain('The outcome is unknown');
  });

  it('terminal failures (argument errors) are not retried', async () => {
    const invalid = failureResult(ToolErrorCode.INVALID_ARGUMENT, 'path: bad');
    const { tool, state } = scriptedTool('read_file', [invalid, ok()], {
      policy: RunPolicies.network,
    });
    const { executor } = setup([tool]);
    expect(await executor.execute('read_file', {})).toEqual(invalid);
    expect(state.calls).toBe(1);
  });

  it('a cancellation during the backoff wait ends the call without another attempt', async () => {
    const { tool, state } = scriptedTool('web_fetch', [crash, ok()], {
      policy: RunPolicies.network,
    });
    const { executor } = setup([tool]);
    const controller = new AbortController();
    const pending = executor.execute('web_fetch', {}, { signal: controller.signal });
    await flushMicrotasks();
    controller.abort();
    const result = await pending;
    expect(!result.ok && result.error.details).toEqual({ cancelled: true });
    expect(state.calls).toBe(1);
  });
});

describe('PipelineToolExecutor: rate limiter', () => {
  it('rejects the call over the quota at once with RATE_LIMITED and a retry-after', async () => {
    const { tool, state } = scriptedTool('read_file', [ok()], { policy: RunPolicies.quickRead });
    const clock = new FakeClock();
    const { executor: executorWithClock } = executorOn(clock, [tool], {
      rateLimiter: new ToolRateLimiter({ clock }),
      runPolicies: {},
    });
    for (let call = 0; call < 120; call += 1) {
      expect((await executorWithClock.execute('read_file', {})).ok).toBe(true);
    }
    const result = await executorWithClock.execute('read_file', {});
    expect(state.calls).toBe(120);
    expect(renderResult(result)).toBe(
      'Error: [RATE_LIMITED] read_file is limited to 120 calls a minute and the quota is used up.\nRetry after: 500 ms\nNext: Wait 500 ms before calling read_file again; avoid calling it in a loop.',
    );
    clock.advance(500);
    expect((await executorWithClock.execute('read_file', {})).ok).toBe(true);
  });

  it('mutating tools have no limit', async () => {
    const { tool } = scriptedTool('write_file', [ok()], {
      policy: RunPolicies.mutating,
      readOnly: false,
    });
    const clock = new FakeClock();
    const { executor } = executorOn(clock, [tool], { rateLimiter: new ToolRateLimiter({ clock }) });
    for (let call = 0; call < 300; call += 1) {
      expect((await executor.execute('write_file', {})).ok).toBe(true);
    }
  });
});

describe('PipelineToolExecutor: circuit breaker', () => {
  it('opens after 5 consecutive failed calls and stops calling the tool', async () => {
    const { tool, state } = scriptedTool('web_fetch', [crash], { policy: RunPolicies.mutating });
    const clock = new FakeClock();
    const { executor } = executorOn(clock, [tool], {
      circuitBreaker: new ToolCircuitBreaker({ clock }),
      runPolicies: {},
    });
    for (let call = 0; call < 5; call += 1) await executor.execute('web_fetch', {});
    const denied = await executor.execute('web_fetch', {});
    expect(state.calls).toBe(5);
    expect(!denied.ok && denied.error.code).toBe('CIRCUIT_OPEN');
    expect(renderResult(denied)).toContain('Last error: [EXECUTION_FAILED] connection reset.');
    expect(renderResult(denied)).toContain('The next probe is allowed in 30 s.');
    clock.advance(30_000);
    await executor.execute('web_fetch', {});
    expect(state.calls).toBe(6);
  });
});

describe('PipelineToolExecutor: pipeline order', () => {
  function orderFixture() {
    const { tool, state } = scriptedTool('input_text', [ok()], {
      policy: { ...RunPolicies.quickRead, ratePerMinute: 1 },
      risk: 'MEDIUM',
    });
    const clock = new FakeClock();
    const asked: string[] = [];
    const permissions = new ToolPermissionManager({
      confirm: async (request) => {
        asked.push(request.toolId);
        return 'allow_session';
      },
    });
    const environment = new ToolEnvironmentState({ clock });
    const traces = new ToolTraceRecorder({ clock });
    const breaker = new ToolCircuitBreaker({ clock, failureThreshold: 1 });
    const { executor } = executorOn(clock, [tool], {
      traces,
      gate: new RiskAwareToolGate(permissions),
      environmentGate: new ToolEnvironmentGate({
        state: environment,
        rules: {
          input_text: [
            {
              signal: 'ime.shown',
              blocks: (value) => value === false,
              message: 'no keyboard',
              hint: 'tap a field',
            },
          ],
        },
      }),
      rateLimiter: new ToolRateLimiter({ clock }),
      circuitBreaker: breaker,
      runPolicies: {},
    });
    return { executor, asked, environment, state, breaker, traces, clock };
  }

  it('environment gate runs before the risk gate (no prompt for a blocked call)', async () => {
    const fixture = orderFixture();
    fixture.environment.set('ime.shown', false);
    const result = await fixture.executor.execute('input_text', {});
    expect(!result.ok && result.error.code).toBe('UNSUPPORTED');
    expect(fixture.asked).toEqual([]);
  });

  it('risk gate runs before schema validation, which runs before the rate limiter', async () => {
    const fixture = orderFixture();
    const invalid = await fixture.executor.execute('input_text', { n: 'x' });
    expect(fixture.asked).toEqual(['input_text']);
    expect(!invalid.ok && invalid.error.code).toBe('INVALID_ARGUMENT');
    // The invalid call took no token: the valid one still gets the single token.
    expect((await fixture.executor.execute('input_text', {})).ok).toBe(true);
    const limited = await fixture.executor.execute('input_text', {});
    expect(!limited.ok && limited.error.code).toBe('RATE_LIMITED');
  });

  it('rate limiter runs before the breaker, which runs before the tool', async () => {
    const fixture = orderFixture();
    fixture.breaker.record('input_text', crash);
    const denied = await fixture.executor.execute('input_text', {});
    expect(!denied.ok && denied.error.code).toBe('CIRCUIT_OPEN');
    expect(fixture.state.calls).toBe(0);
    // The breaker refusal came after the limiter took the token.
    const limited = await fixture.executor.execute('input_text', {});
    expect(!limited.ok && limited.error.code).toBe('RATE_LIMITED');
  });

  it('records refusals as attempt-0 spans and attempts as numbered spans', async () => {
    const fixture = orderFixture();
    await fixture.executor.execute('input_text', { n: 'x' });
    await fixture.executor.execute('input_text', {});
    await fixture.executor.execute('input_text', {});
    expect(fixture.traces.spans().map((span) => [span.attempt, span.outcome])).toEqual([
      [0, 'INVALID_ARGUMENT'],
      [1, 'ok'],
      [0, 'RATE_LIMITED'],
    ]);
  });
});

describe('PipelineToolExecutor: policy overrides', () => {
  it('overrides fields of the declared policy and can lift a rate limit', async () => {
    const { tool } = scriptedTool('read_file', [ok()], { policy: RunPolicies.quickRead });
    const clock = new FakeClock();
    const { registry, executor } = executorOn(clock, [tool], {
      rateLimiter: new ToolRateLimiter({ clock }),
      runPolicies: { overrides: { read_file: { timeoutMs: 5_000, ratePerMinute: undefined } } },
    });
    const registered = registry.get('read_file');
    expect(registered && executor.policyOf(registered)).toEqual({
      ...RunPolicies.quickRead,
      name: 'quickRead*',
      timeoutMs: 5_000,
      ratePerMinute: undefined,
    });
    for (let call = 0; call < 200; call += 1) {
      expect((await executor.execute('read_file', {})).ok).toBe(true);
    }
  });
});

describe('PipelineToolExecutor: attempt context', () => {
  it('a spread context keeps emit, confirm and a working signal', async () => {
    const registry = new ToolRegistry();
    const seen: unknown[] = [];
    registry.register(
      defineTestTool({
        id: 'spreader',
        runPolicy: RunPolicies.quickRead,
        async execute(_args, context) {
          const copy = { ...context };
          copy.emit({ type: 'output', stream: 'stdout', text: 'hi' });
          seen.push(
            copy.signal instanceof AbortSignal,
            copy.signal.aborted,
            await copy.confirm({ action: 'x', risk: 'LOW' }),
          );
          return 'done';
        },
      }),
    );
    const events: ToolEvent[] = [];
    for (const runPolicies of [undefined, {}]) {
      const executor = createToolExecutor({
        registry,
        clock: new FakeClock(),
        confirm: async () => 'allow_once',
        ...(runPolicies ? { runPolicies } : {}),
      });
      expect(
        await executor.execute('spreader', {}, { onEvent: (event) => events.push(event) }),
      ).toEqual(ok('done'));
    }
    expect(seen).toEqual([true, false, 'allow_once', true, false, 'allow_once']);
    expect(events).toHaveLength(2);
  });
});
