import { describe, expect, it } from 'vitest';
import type { CallPrincipal } from '../contract/tool.js';
import { ToolRateLimiter } from '../policies/rate-limiter.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeClock } from '../testing/fake-clock.js';
import { defineTestTool } from '../testing/test-tool.js';
import { createToolExecutor } from './pipeline-tool-executor.js';

const ALICE: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };
const BOB: CallPrincipal = { id: 'bob', kind: 'oauth', scopes: [] };

function setUp(options: { withLimiter?: boolean } = {}) {
  const clock = new FakeClock();
  const registry = new ToolRegistry();
  registry.registerAll([
    defineTestTool({ id: 'one', execute: () => 'ran' }),
    defineTestTool({ id: 'two', execute: () => 'ran' }),
  ]);
  const executor = createToolExecutor({
    registry,
    clock,
    principalQuota: { ratePerMinute: 3 },
    ...(options.withLimiter ? { rateLimiter: new ToolRateLimiter({ clock }) } : {}),
  });
  return { executor, clock };
}

describe('the per-principal quota', () => {
  it('refuses a principal past its quota across tools, naming it and when to retry', async () => {
    const { executor } = setUp();
    for (const tool of ['one', 'two', 'one']) {
      expect(await executor.execute(tool, {}, { principal: ALICE })).toMatchObject({ ok: true });
    }
    const refused = await executor.execute('two', {}, { principal: ALICE });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'RATE_LIMITED',
        message:
          'The calls of principal "alice" are limited to 3 a minute (all tools together) and this quota is used up.',
        details: { quota: 'principal', principal: 'alice', ratePerMinute: 3 },
      },
    });
    if (refused.ok) throw new Error('expected a failure');
    expect(refused.error.retryAfterMs).toBeGreaterThan(0);
    expect(refused.error.retryAfterMs).toBeLessThanOrEqual(20_000);
  });

  it("leaves another principal its own quota, in the deployment's shared limiter too", async () => {
    for (const withLimiter of [false, true]) {
      const { executor } = setUp({ withLimiter });
      for (let index = 0; index < 4; index++)
        await executor.execute('one', {}, { principal: ALICE });
      expect(await executor.execute('one', {}, { principal: BOB })).toMatchObject({ ok: true });
    }
  });

  it('refills with time and does not count calls without a principal', async () => {
    const { executor, clock } = setUp();
    for (let index = 0; index < 3; index++) await executor.execute('one', {}, { principal: ALICE });
    expect((await executor.execute('one', {}, { principal: ALICE })).ok).toBe(false);
    for (let index = 0; index < 5; index++) {
      expect((await executor.execute('one', {})).ok).toBe(true);
    }
    clock.advance(20_000);
    expect((await executor.execute('one', {}, { principal: ALICE })).ok).toBe(true);
  });
});
