import { describe, expect, it } from 'vitest';
import { ToolErrorCode } from '../contract/tool-error.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { failureResult, successResult } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import { ToolCircuitBreaker } from '../policies/circuit-breaker.js';
import { ToolRateLimiter } from '../policies/rate-limiter.js';
import { RunPolicies } from '../policies/tool-run-policy.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock } from '../testing/fake-clock.js';
import { defineTestTool } from '../testing/test-tool.js';
import { createToolExecutor } from './pipeline-tool-executor.js';

function setup(options: { openWorld?: boolean } = {}) {
  const clock = new FakeClock();
  const registry = new ToolRegistry();
  registry.register(
    defineTestTool({
      id: 'compute',
      description: 'Computes, or runs out of time when told to.',
      inputSchema: ToolSchema.object({}),
      metadata: {
        category: 'utility',
        risk: 'LOW',
        annotations: {
          ...ToolHints.mutating,
          readOnlyHint: true,
          openWorldHint: options.openWorld ?? false,
        },
      },
      runPolicy: { ...RunPolicies.quickRead, ratePerMinute: 10, maxRetries: 0 },
      execute: (args: Record<string, unknown>) =>
        args.slow
          ? failureResult(ToolErrorCode.TIMEOUT, 'compute did not finish within 30 s')
          : successResult('done'),
    }),
  );
  const breaker = new ToolCircuitBreaker({ clock, failureThreshold: 3 });
  const limiter = new ToolRateLimiter({ clock });
  const executor = createToolExecutor({
    registry,
    clock,
    rateLimiter: limiter,
    circuitBreaker: breaker,
    runPolicies: {},
  });
  return { executor, breaker, limiter, clock };
}

describe('per-caller quotas', () => {
  it('one session using its quota up leaves the others theirs', async () => {
    const { executor } = setup();
    for (let index = 0; index < 10; index++) {
      expect((await executor.execute('compute', {}, { sessionId: 'greedy' })).ok).toBe(true);
    }
    const refused = await executor.execute('compute', {}, { sessionId: 'greedy' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe('RATE_LIMITED');
      expect(refused.error.message).toBe(
        'compute is limited to 10 calls a minute and the quota is used up.',
      );
    }
    for (let index = 0; index < 10; index++) {
      expect((await executor.execute('compute', {}, { sessionId: 'other' })).ok).toBe(true);
    }
  });

  it('many sessions together meet the quota they share', async () => {
    const { executor, limiter } = setup();
    let refused = 0;
    for (let session = 0; session < 6; session++) {
      for (let index = 0; index < 10; index++) {
        const result = await executor.execute('compute', {}, { sessionId: `s${session}` });
        if (!result.ok) {
          refused += 1;
          expect(result.error.message).toBe(
            'compute is limited to 40 calls a minute across all sessions and the quota is used up.',
          );
        }
      }
    }
    expect(refused).toBe(20);
    // The dashboard lists the shared quota only, not one line per session.
    expect(limiter.snapshot().map((state) => state.toolId)).toEqual(['compute']);
  });

  it('a call the shared quota refuses does not use up the caller’s own', async () => {
    const { executor, clock } = setup();
    for (let session = 0; session < 4; session++) {
      for (let index = 0; index < 10; index++) {
        await executor.execute('compute', {}, { sessionId: `s${session}` });
      }
    }
    // The shared quota is used up: a fifth session is refused by it, five times.
    for (let index = 0; index < 5; index++) {
      const refused = await executor.execute('compute', {}, { sessionId: 'late' });
      expect(!refused.ok && refused.error.message).toBe(
        'compute is limited to 40 calls a minute across all sessions and the quota is used up.',
      );
    }
    // Those refusals did not count against its own quota of 10: 15 s later the shared quota
    // has 10 calls again, and the fifth session may make all ten (with its refused calls
    // counted, it would have 7.5).
    clock.advance(15_000);
    const later = [];
    for (let index = 0; index < 10; index++) {
      later.push(await executor.execute('compute', {}, { sessionId: 'late' }));
    }
    expect(later.filter((result) => result.ok)).toHaveLength(10);
  });
});

describe('the breaker and time-outs caused by input', () => {
  it('a pure computation timing out on one caller’s input does not open the breaker for all', async () => {
    const { executor, breaker } = setup();
    for (let index = 0; index < 5; index++) {
      await executor.execute('compute', { slow: true }, { sessionId: 'attacker' });
    }
    expect(breaker.stateOf('compute')).toBe('CLOSED');
    expect(await executor.execute('compute', {}, { sessionId: 'other' })).toEqual({
      ok: true,
      content: 'done',
    });
  });

  it('a tool that reaches the outside world still opens its breaker on time-outs', async () => {
    const { executor, breaker } = setup({ openWorld: true });
    for (let index = 0; index < 3; index++) {
      await executor.execute('compute', { slow: true }, { sessionId: 'attacker' });
    }
    expect(breaker.stateOf('compute')).toBe('OPEN');
  });
});
