import { failureResult, renderResult, ToolErrorCode } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { BREAKER_RECONCILE_SCRIPT, createSharedState, type SharedState } from '../src/index.js';
import { until, useRedis } from './redis-fixture.js';

// Breaker outcomes a replica recorded while Redis was down, merged back when it returns: a real
// redis-server on a private loopback port, SIGKILLed and restarted on the same port with the same
// append-only file, so the shared circuits of before the outage are still there.

const reset = failureResult(ToolErrorCode.EXECUTION_FAILED, 'connection reset');
const redis = useRedis({ persistent: true });
const { opened } = redis;

async function shared(
  replicaId: string,
  breaker: { failureThreshold: number; cooldownMs: number },
  probeIntervalMs = 100,
): Promise<SharedState> {
  const state = createSharedState({
    url: redis.server.url,
    keyPrefix: 'breakers:',
    replicaId,
    operationTimeoutMs: 100,
    probeIntervalMs,
    breaker,
  });
  opened.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  return state;
}

describe('breaker state recorded during a Redis outage', () => {
  it('opens the shared circuit for every replica once Redis returns', async () => {
    const breaker = { failureThreshold: 3, cooldownMs: 30_000 };
    const stateA = await shared('a', breaker);
    const stateB = await shared('b', breaker);
    await redis.server.kill();
    await until(() => stateA.status().mode === 'local');
    for (let call = 0; call < 3; call += 1) stateA.circuitBreaker.record('web_fetch', reset);
    expect((await stateA.circuitBreaker.check('web_fetch')).allowed).toBe(false);
    await redis.server.restart();
    await until(() => stateA.status().mode === 'shared' && stateB.status().mode === 'shared');
    expect(await redis.admin.hmget('breakers:breaker:web_fetch', 'state', 'failures')).toEqual([
      'OPEN',
      '3',
    ]);
    // B recorded nothing itself, and refuses with the local breaker's text.
    const denied = await stateB.circuitBreaker.check('web_fetch');
    expect(denied.allowed).toBe(false);
    if (denied.allowed) return;
    expect(renderResult(denied.failure)).toMatch(
      /^Error: \[CIRCUIT_OPEN\] web_fetch is paused after 3 consecutive failures\. Last error: \[EXECUTION_FAILED\] connection reset\. The next probe is allowed in (29|30) s\./,
    );
  }, 30_000);

  it('does not reopen a circuit that recovered after the failures it recorded', async () => {
    const breaker = { failureThreshold: 2, cooldownMs: 300 };
    // A retries its connection every 4 s, so B (100 ms) is back first.
    const stateA = await shared('a', breaker, 4000);
    const stateB = await shared('b', breaker);
    stateB.circuitBreaker.record('web_fetch', reset);
    stateB.circuitBreaker.record('web_fetch', reset);
    await until(
      async () => (await redis.admin.hget('breakers:breaker:web_fetch', 'state')) === 'OPEN',
    );
    await redis.server.kill();
    await until(() => stateA.status().mode === 'local');
    stateA.circuitBreaker.record('web_fetch', reset);
    stateA.circuitBreaker.record('web_fetch', reset);
    expect((await stateA.circuitBreaker.check('web_fetch')).allowed).toBe(false);
    await redis.server.restart();
    await until(() => stateB.status().mode === 'shared');
    // B's probe succeeds: the shared circuit closes, after A's failures.
    await until(async () => (await stateB.circuitBreaker.check('web_fetch')).allowed);
    stateB.circuitBreaker.record('web_fetch', { ok: true, content: 'ok' });
    await until(async () => (await redis.admin.exists('breakers:breaker:web_fetch')) === 0);
    expect(stateA.status().mode).toBe('local');
    await until(() => stateA.status().mode === 'shared', 10_000);
    expect(await redis.admin.exists('breakers:breaker:web_fetch')).toBe(0);
    expect(await stateA.circuitBreaker.check('web_fetch')).toEqual({ allowed: true, probe: false });
  }, 30_000);

  it('pushes a recovery seen during the outage when it is newer than the shared failures', async () => {
    const breaker = { failureThreshold: 1, cooldownMs: 200 };
    const stateA = await shared('a', breaker);
    stateA.circuitBreaker.record('web_fetch', reset);
    await until(
      async () => (await redis.admin.hget('breakers:breaker:web_fetch', 'state')) === 'OPEN',
    );
    await redis.server.kill();
    await until(() => stateA.status().mode === 'local');
    await new Promise((resolve) => setTimeout(resolve, 250));
    // The local probe after the cooldown succeeds.
    expect(stateA.circuitBreaker.check('web_fetch')).toEqual({ allowed: true, probe: true });
    stateA.circuitBreaker.record('web_fetch', { ok: true, content: 'ok' });
    await redis.server.restart();
    await until(() => stateA.status().mode === 'shared');
    expect(await redis.admin.exists('breakers:breaker:web_fetch')).toBe(0);
    expect(Number(await redis.admin.get('breakers:recovered:web_fetch'))).toBeGreaterThan(0);
  }, 30_000);
});

describe('the reconcile script', () => {
  const keys = ['r:breaker:t', 'r:probe:t', 'r:recovered:t'];

  async function redisNow(): Promise<number> {
    const [seconds, micros] = await redis.admin.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  function reconcile(options: {
    failures: number;
    failedAgo: number;
    succeededAgo: number;
    openedAgo: number;
    cooldown: number;
  }): Promise<unknown> {
    return redis.admin.eval(
      BREAKER_RECONCILE_SCRIPT,
      3,
      ...keys,
      5,
      30_000,
      300_000,
      options.failures,
      options.failedAgo,
      options.succeededAgo,
      options.openedAgo,
      options.cooldown,
      'TIMEOUT',
      'no answer in 30 s',
    );
  }

  it('keeps the shared pause when it ends later than the replica’s', async () => {
    const now = await redisNow();
    await redis.admin.hset(keys[0] as string, {
      state: 'OPEN',
      failures: 6,
      cooldown: 60_000,
      openedAt: now,
      failedAt: now,
    });
    const state = await reconcile({
      failures: 5,
      failedAgo: 10_000,
      succeededAgo: -1,
      openedAgo: 10_000,
      cooldown: 30_000,
    });
    expect(state).toBe('OPEN');
    expect(await redis.admin.hmget(keys[0] as string, 'openedAt', 'cooldown', 'failures')).toEqual([
      String(now),
      '60000',
      '11',
    ]);
  });

  it('takes the replica’s pause when it ends later, keeping the longer cooldown', async () => {
    const now = await redisNow();
    await redis.admin.hset(keys[0] as string, {
      state: 'OPEN',
      failures: 5,
      cooldown: 60_000,
      openedAt: now - 50_000,
      failedAt: now - 50_000,
    });
    await reconcile({
      failures: 5,
      failedAgo: 1000,
      succeededAgo: -1,
      openedAgo: 1000,
      cooldown: 30_000,
    });
    const [openedAt, cooldown, lastCode] = await redis.admin.hmget(
      keys[0] as string,
      'openedAt',
      'cooldown',
      'lastCode',
    );
    // Ends where the replica's pause ends: opened 1 s ago + 30 s.
    expect(Number(openedAt) + Number(cooldown)).toBeGreaterThanOrEqual(now - 1000 + 30_000);
    expect(Number(openedAt) + Number(cooldown)).toBeLessThan(now - 1000 + 30_000 + 1000);
    expect(cooldown).toBe('60000');
    expect(lastCode).toBe('TIMEOUT');
  });

  it('opens a closed circuit when the failures add up to the threshold', async () => {
    const now = await redisNow();
    await redis.admin.hset(keys[0] as string, {
      state: 'CLOSED',
      failures: 3,
      cooldown: 30_000,
      failedAt: now - 5000,
    });
    expect(
      await reconcile({
        failures: 2,
        failedAgo: 100,
        succeededAgo: -1,
        openedAgo: -1,
        cooldown: 30_000,
      }),
    ).toBe('OPEN');
    expect(await redis.admin.hget(keys[0] as string, 'failures')).toBe('5');
  });

  it('leaves shared failures newer than the replica’s recovery alone', async () => {
    const now = await redisNow();
    await redis.admin.hset(keys[0] as string, {
      state: 'OPEN',
      failures: 5,
      cooldown: 30_000,
      openedAt: now - 1000,
      failedAt: now - 1000,
    });
    expect(
      await reconcile({
        failures: 0,
        failedAgo: -1,
        succeededAgo: 5000,
        openedAgo: -1,
        cooldown: 30_000,
      }),
    ).toBe('OPEN');
    expect(await redis.admin.hget(keys[0] as string, 'state')).toBe('OPEN');
  });
});
