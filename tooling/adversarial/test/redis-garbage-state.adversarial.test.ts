import { successResult, type ToolTraceSpan } from '@toolsys/core-tool-registry';
import { createSharedState, type SharedState, sessionDigest } from '@toolsys/state-redis';
import { type RedisProcess, startRedis } from '@toolsys/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// Issue item 26: whoever else can write to the shared Redis (another user, a broken replica) can
// put garbage where a replica reads numbers. An invalid value counts as absent: it never switches
// a limit off and never locks a tool; it is reported once and overwritten.

let redis: RedisProcess;
const states: SharedState[] = [];
let warnings: string[] = [];
let prefixCount = 0;

async function shared(): Promise<{ state: SharedState; prefix: string }> {
  const prefix = `garbage${prefixCount++}:`;
  const state = createSharedState({
    url: redis.url,
    keyPrefix: prefix,
    operationTimeoutMs: 1000,
    warn: (message) => warnings.push(message),
  });
  states.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  return { state, prefix };
}

/** Calls allowed out of `calls` at `ratePerMinute`, one after another. */
async function admitted(state: SharedState, calls: number, ratePerMinute: number) {
  const decisions = [];
  for (let call = 0; call < calls; call += 1) {
    decisions.push(await state.rateLimiter.tryAcquire('write_file', ratePerMinute));
  }
  return decisions;
}

const NUMBERS = ['inf', '-inf', '1e308', '-1e308', 'nan', '-5', 'abc', 'x'.repeat(100_000)];

beforeAll(async () => {
  redis = await startRedis();
});

afterEach(async () => {
  for (const state of states.splice(0)) await state.close();
  warnings = [];
});

afterAll(async () => {
  await redis?.stop();
});

describe('garbage in shared state (item 26)', { timeout: 60_000 }, () => {
  for (const value of NUMBERS) {
    for (const field of ['tokens', 'updated']) {
      it(`a rate bucket with ${field}=${value.slice(0, 12)} admits the quota, no more, no less`, async () => {
        const { state, prefix } = await shared();
        await redis.cli('HSET', `${prefix}rate:write_file`, field, value, 'capacity', '3');
        if (field === 'tokens') {
          await redis.cli('HSET', `${prefix}rate:write_file`, 'updated', String(Date.now()));
        } else await redis.cli('HSET', `${prefix}rate:write_file`, 'tokens', '2');
        const decisions = await admitted(state, 6, 3);
        expect(decisions.filter((decision) => decision.allowed)).toHaveLength(3);
        for (const decision of decisions) {
          if (!decision.allowed) {
            expect(decision.retryAfterMs).toBeGreaterThan(0);
            expect(decision.retryAfterMs).toBeLessThanOrEqual(60_000);
          }
        }
        // Overwritten with a valid bucket, and reported once.
        expect(Number(await redis.cli('HGET', `${prefix}rate:write_file`, field))).toSatisfy(
          Number.isFinite,
        );
        expect(warnings.filter((warning) => warning.includes('rate:write_file'))).toHaveLength(1);
      });
    }
  }

  for (const [field, value] of [
    ['openedAt', '1e308'],
    ['openedAt', 'nan'],
    ['cooldown', 'inf'],
    ['cooldown', 'nan'],
    ['cooldown', '-1e308'],
    ['state', 'LOCKED'],
  ] as const) {
    it(`an open circuit with ${field}=${value} is reset, not locked forever`, async () => {
      const { state, prefix } = await shared();
      const fields: Record<string, string> = {
        state: 'OPEN',
        failures: '5',
        cooldown: '30000',
        openedAt: String(Date.now() - 60_000),
        [field]: value,
      };
      await redis.cli('HSET', `${prefix}breaker:write_file`, ...Object.entries(fields).flat());
      const decision = await state.circuitBreaker.check('write_file');
      expect(decision.allowed).toBe(true);
      expect(state.connection.mode).toBe('shared');
      state.circuitBreaker.record('write_file', successResult('ok'));
      expect(warnings.filter((warning) => warning.includes('breaker:write_file'))).toHaveLength(1);
    });
  }

  it('a failure counted on a garbage circuit starts it afresh', async () => {
    const { state, prefix } = await shared();
    await redis.cli(
      'HSET',
      `${prefix}breaker:t`,
      'state',
      'CLOSED',
      'failures',
      'inf',
      'cooldown',
      'inf',
    );
    const failure = {
      ok: false as const,
      error: { code: 'TIMEOUT' as const, message: 'slow', retryable: true },
    };
    state.circuitBreaker.record('t', failure as never);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await redis.cli('HGET', `${prefix}breaker:t`, 'failures')).toBe('1');
    expect(await redis.cli('HGET', `${prefix}breaker:t`, 'cooldown')).toBe('30000');
    expect((await state.circuitBreaker.check('t')).allowed).toBe(true);
  });

  for (const value of ['abc', '1e308', '-5', '99999999999999999999']) {
    it(`a grant version counter of ${value} does not stop revocations`, async () => {
      const { state, prefix } = await shared();
      const store = state.permissionStore;
      store.allowForSession('s1', 'write_file');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await redis.cli('SMEMBERS', `${prefix}perm:session:${sessionDigest('s1')}`)).toBe(
        'write_file',
      );
      await redis.cli('SET', `${prefix}perm:version`, value);
      store.forgetSession('s1');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await redis.cli('EXISTS', `${prefix}perm:session:${sessionDigest('s1')}`)).toBe('0');
      expect(state.connection.mode).toBe('shared');
      expect(Number(await redis.cli('GET', `${prefix}perm:version`))).toSatisfy(
        Number.isSafeInteger,
      );
      expect(warnings.filter((warning) => warning.includes('perm:version'))).toHaveLength(1);
    });
  }

  it('the shared trace ring skips entries that are not spans', async () => {
    const { state, prefix } = await shared();
    const span: ToolTraceSpan = {
      callId: 'c1',
      toolId: 'calculate',
      attempt: 1,
      startedAt: Date.now(),
      durationMs: 3,
      outcome: 'ok',
    } as unknown as ToolTraceSpan;
    state.traceRing.add(span);
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const garbage of ['1e308', '"x"', '{}', 'null', '[1,2]', '{"toolId":5}']) {
      await redis.cli('LPUSH', `${prefix}traces`, garbage);
    }
    const spans = await state.traceRing.recent();
    expect(spans?.map((entry) => entry.toolId)).toEqual(['calculate']);
    expect(warnings.filter((warning) => warning.includes('traces'))).toHaveLength(1);
  });
});
