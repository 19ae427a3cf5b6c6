import { describe, expect, it } from 'vitest';
import { BREAKER_FAILURE_SCRIPT, createSharedState, type SharedState } from '../src/index.js';
import { until, useRedis } from './redis-fixture.js';

// Three "replicas" (three shared states) against one real redis-server: what they admit together
// while Redis is frozen (SIGSTOP: their scripts queue and run late), and how it is charged back.

const redis = useRedis();
const QUOTA = 30;

async function replicas(count: number, warn?: (message: string) => void): Promise<SharedState[]> {
  const states = Array.from({ length: count }, (_, index) => {
    const state = createSharedState({
      url: redis.server.url,
      keyPrefix: 'fair:',
      replicaId: `r${index}`,
      // A test bound (the default is measured): short, so a frozen Redis is missed quickly.
      operationTimeoutMs: 150,
      probeIntervalMs: 100,
      heartbeatIntervalMs: 100,
      ...(warn ? { warn } : {}),
    });
    redis.opened.push(state);
    return state;
  });
  for (const state of states) expect(await state.connection.waitUntilShared(5000)).toBe(true);
  await until(() => states.every((state) => state.heartbeat.liveCount === count));
  return states;
}

async function admitted(state: SharedState, calls: number): Promise<number> {
  let count = 0;
  for (let call = 0; call < calls; call += 1) {
    if ((await state.rateLimiter.tryAcquire('lookup', QUOTA)).allowed) count += 1;
  }
  return count;
}

describe('fair share while Redis is missed', () => {
  it('admits at most the shared bucket across three replicas while Redis is frozen, and charges it exactly once after', async () => {
    const states = await replicas(3);
    const started = performance.now();
    let total = await admitted(states[0] as SharedState, 15);
    for (const state of states.slice(1)) total += await admitted(state, 1);
    expect(total).toBe(17);
    redis.server.pause();
    let alone = 0;
    try {
      const counts = await Promise.all(states.map((state) => admitted(state, 10)));
      alone = counts.reduce((sum, count) => sum + count, 0);
    } finally {
      redis.server.resume();
    }
    // 13 tokens were left: each replica had a third of them (and of the refill, 0.5 a second).
    const refill = () => ((performance.now() - started) / 60_000) * QUOTA;
    expect(alone).toBeGreaterThanOrEqual(10);
    expect(alone).toBeLessThanOrEqual(13 + refill() + 1);
    total += alone;
    await until(() => states.every((state) => state.status().mode === 'shared'), 10_000);
    // Shared again: whatever is admitted now, the total over the run never passes the quota plus
    // the refill, and falls short of it by at most one token (each charge counted once).
    for (let round = 0; round < 3; round += 1) {
      for (const state of states) total += await admitted(state, 5);
    }
    const allowed = QUOTA + refill();
    expect(total).toBeLessThanOrEqual(Math.floor(allowed));
    expect(total).toBeGreaterThanOrEqual(Math.floor(allowed) - 2);
    const charged = await redis.admin.hmget('fair:rate:lookup', 'charged:r0', 'charged:r1');
    expect(charged.map(Number).every((count) => count > 0)).toBe(true);
  }, 60_000);

  it('ignores a forged replica and a charged count that no replica wrote', async () => {
    const warnings: string[] = [];
    const states = await replicas(2, (message) => warnings.push(message));
    // A member expiring in a thousand years, and a charged count that is not a count.
    await redis.admin.zadd('fair:replicas', 1e15, 'forged');
    await redis.admin.hset('fair:rate:lookup', 'tokens', '3', 'updated', '0', 'charged:r0', 'nan');
    await (states[0] as SharedState).heartbeat.beat();
    expect((states[0] as SharedState).heartbeat.live()).toEqual(['r0', 'r1']);
    expect((await (states[0] as SharedState).rateLimiter.tryAcquire('lookup', QUOTA)).allowed).toBe(
      true,
    );
    expect(warnings).toEqual([expect.stringContaining('fair:rate:lookup held an invalid value')]);
    expect(await redis.admin.hget('fair:rate:lookup', 'charged:r0')).toBe('1');
  });

  it('counts a failure once when its script is sent again with the same total', async () => {
    const run = (total: number) =>
      redis.admin.eval(
        BREAKER_FAILURE_SCRIPT,
        2,
        'fair:breaker:t',
        'fair:probe:t',
        3,
        1000,
        8000,
        'EXECUTION_FAILED',
        'reset',
        'failed:r0',
        total,
      ) as Promise<[number, number]>;
    expect((await run(1))[0]).toBe(1);
    // The same failure pushed again after its reply was missed: not added.
    expect((await run(1))[0]).toBe(1);
    expect((await run(2))[0]).toBe(2);
    expect(await redis.admin.hget('fair:breaker:t', 'state')).toBe('CLOSED');
    expect((await run(3))[0]).toBe(3);
    expect(await redis.admin.hget('fair:breaker:t', 'state')).toBe('OPEN');
  });
});
