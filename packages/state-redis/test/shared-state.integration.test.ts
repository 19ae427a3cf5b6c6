import {
  createToolExecutor,
  defineTool,
  failureResult,
  RiskAwareToolGate,
  RunPolicies,
  renderResult,
  SHARED_QUOTA_CALLERS,
  ToolErrorCode,
  ToolHints,
  ToolPermissionManager,
  ToolRegistry,
  type ToolResult,
  ToolSchema,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSharedState, LEASE_MS, type SharedState } from '../src/index.js';
import { sessionDigest } from '../src/session-digest.js';
import { until, useRedis } from './redis-fixture.js';

// Two "replicas": two executors, each with its own shared-state connection, against one real
// redis-server on a private loopback port.

const redis = useRedis();
const { opened } = redis;

async function shared(replicaId: string, breaker = {}): Promise<SharedState> {
  const state = createSharedState({
    url: redis.server.url,
    keyPrefix: 'test:',
    replicaId,
    probeIntervalMs: 100,
    breaker,
  });
  opened.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  return state;
}

interface Behaviour {
  result: () => ToolResult | Promise<ToolResult>;
  calls: number;
}

function replica(
  state: SharedState,
  behaviour: Behaviour,
  confirm?: () => Promise<'allow_session' | 'allow_always' | 'deny' | 'allow_once'>,
  ratePerMinute = 10,
) {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      id: 'web_fetch',
      description: 'fixture standing for a remote backend',
      inputSchema: ToolSchema.object({ url: z.string().optional() }),
      metadata: {
        category: 'network',
        risk: 'MEDIUM',
        annotations: { ...ToolHints.readOnly, openWorldHint: true },
      },
      runPolicy: { ...RunPolicies.network, ratePerMinute, maxRetries: 0 },
      execute: () => {
        behaviour.calls += 1;
        return behaviour.result();
      },
    }),
  );
  const traces = new ToolTraceRecorder();
  state.traceRing.attach(traces);
  const permissions = new ToolPermissionManager({
    store: state.permissionStore,
    ...(confirm ? { confirm } : {}),
  });
  return createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(permissions),
    rateLimiter: state.rateLimiter,
    circuitBreaker: state.circuitBreaker,
    traces,
    runPolicies: {},
  });
}

const ok: ToolResult = { ok: true, content: 'ok' };
const reset = failureResult(ToolErrorCode.EXECUTION_FAILED, 'connection reset');
const allowAll = async () => 'allow_always' as const;

describe('two replicas sharing one Redis', () => {
  it('admit exactly the quota all sessions share together (40 a minute, not 80)', async () => {
    const a = replica(await shared('a'), { result: () => ok, calls: 0 }, allowAll);
    const b = replica(await shared('b'), { result: () => ok, calls: 0 }, allowAll);
    // Eight sessions, four on each replica, each within its own quota of 10: only the shared
    // quota (SHARED_QUOTA_CALLERS times 10) holds them.
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, index) =>
        (index % 2 === 0 ? a : b).execute('web_fetch', {}, { sessionId: `s${index % 8}` }),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(10 * SHARED_QUOTA_CALLERS);
    const refused = results.find((result) => !result.ok);
    expect(refused && renderResult(refused)).toMatch(
      /^Error: \[RATE_LIMITED\] web_fetch is limited to 40 calls a minute across all sessions and the quota is used up\.\nRetry after: [0-9.]+ s\nNext: Wait [0-9.]+ s before calling web_fetch again; avoid calling it in a loop\.$/,
    );
  });

  it('keep each session’s own quota on its replica, with no round trip for its refusals', async () => {
    const a = replica(await shared('a'), { result: () => ok, calls: 0 }, allowAll);
    const evalsha = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.admin.info('commandstats'))?.[1] ?? 0);
    const greedy = [];
    for (let index = 0; index < 15; index++) {
      greedy.push(await a.execute('web_fetch', {}, { sessionId: 'greedy' }));
    }
    expect(greedy.filter((result) => result.ok)).toHaveLength(10);
    const refused = greedy.find((result) => !result.ok);
    expect(refused && renderResult(refused)).toMatch(
      /^Error: \[RATE_LIMITED\] web_fetch is limited to 10 calls a minute and the quota is used up\./,
    );
    const before = await evalsha();
    await a.execute('web_fetch', {}, { sessionId: 'greedy' });
    expect((await evalsha()) - before).toBeLessThanOrEqual(1);
    // Another session still has its own.
    expect((await a.execute('web_fetch', {}, { sessionId: 'patient' })).ok).toBe(true);
  });

  it('pay one Redis round trip per call of a rate-limited tool while no circuit exists, and still see a circuit another replica opened', async () => {
    const evalsha = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.admin.info('commandstats'))?.[1] ?? 0);
    const stateA = await shared('a', { failureThreshold: 2, cooldownMs: 60_000 });
    const stateB = await shared('b', { failureThreshold: 2, cooldownMs: 60_000 });
    const healthy: Behaviour = { result: () => ok, calls: 0 };
    const a = replica(stateA, healthy, allowAll);
    await a.execute('web_fetch', {});
    const before = await evalsha();
    const results = await Promise.all(Array.from({ length: 12 }, () => a.execute('web_fetch', {})));
    // 9 admitted (the quota of 10 less the first call) and 3 refused: one script each, where the
    // limiter and the breaker used to take two for an admitted call (the heartbeat may add one).
    expect(results.filter((result) => result.ok)).toHaveLength(9);
    expect((await evalsha()) - before).toBeLessThanOrEqual(12 + 2);
    // Replica b's failures open the shared circuit: a's next call is refused by it, not passed.
    await redis.admin.del('test:rate:web_fetch');
    const b = replica(stateB, { result: () => reset, calls: 0 }, allowAll);
    await b.execute('web_fetch', {});
    await b.execute('web_fetch', {});
    await until(async () => (await redis.admin.hget('test:breaker:web_fetch', 'state')) === 'OPEN');
    await redis.admin.del('test:rate:web_fetch');
    const calls = healthy.calls;
    // Another session of replica a: the first one used its own quota up.
    const refused = await a.execute('web_fetch', {}, { sessionId: 'another' });
    expect(!refused.ok && refused.error.code).toBe('CIRCUIT_OPEN');
    expect(healthy.calls).toBe(calls);
  });

  it('lease tokens of a large quota: most calls pay no round trip, and together they never pass the quota', async () => {
    const evalsha = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.admin.info('commandstats'))?.[1] ?? 0);
    const stateA = await shared('a');
    const stateB = await shared('b');
    const healthy: Behaviour = { result: () => ok, calls: 0 };
    // 60,000 a minute: each script asks for 61 tokens (the call's and a lease of 60).
    const a = replica(stateA, healthy, allowAll, 60_000);
    const b = replica(stateB, healthy, allowAll, 60_000);
    await a.execute('web_fetch', {});
    await b.execute('web_fetch', {});
    const before = await evalsha();
    const leasing = performance.now();
    for (let round = 0; round < 20; round += 1) {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? a : b).execute('web_fetch', {}),
        ),
      );
      expect(results.every((result) => result.ok)).toBe(true);
    }
    // 400 calls, 10 in flight per replica: without leases one script each. With them, a script
    // per 61 calls, and per lease of 250 ms on a slow machine, for each call in flight when the
    // lease runs out (about 40 scripts on a quiet machine).
    const expiries = Math.ceil((performance.now() - leasing) / LEASE_MS);
    const scripts = (await evalsha()) - before;
    expect(scripts).toBeLessThanOrEqual(100 + 2 * expiries);

    // Near the quota every call takes one token again: 2,000 a minute (asking 3 at a time), three
    // replicas calling until well past it admit the quota plus the refill, at most, and lose at
    // most their last leases (2 tokens each).
    const QUOTA = 2_000;
    const states = [stateA, stateB, await shared('c')];
    await until(() => states.every((state) => state.heartbeat.liveCount === 3));
    const started = performance.now();
    const counts = await Promise.all(
      states.map(async (state) => {
        let count = 0;
        for (let call = 0; call < 1_000; call += 1) {
          if ((await state.rateLimiter.tryAcquire('lookup', QUOTA)).allowed) count += 1;
        }
        return count;
      }),
    );
    const total = counts.reduce((sum, count) => sum + count, 0);
    const allowed = QUOTA + ((performance.now() - started) / 60_000) * QUOTA;
    expect(total).toBeLessThanOrEqual(Math.floor(allowed));
    expect(total).toBeGreaterThanOrEqual(Math.floor(allowed) - 3 * 2 - 1);
  }, 60_000);

  it('see on a lease a circuit another replica opened within the lease, and at once a failure of its own', async () => {
    const stateA = await shared('a', { failureThreshold: 1, cooldownMs: 60_000 });
    const stateB = await shared('b', { failureThreshold: 1, cooldownMs: 60_000 });
    const healthy: Behaviour = { result: () => ok, calls: 0 };
    const a = replica(stateA, healthy, allowAll, 60_000);
    expect((await a.execute('web_fetch', {})).ok).toBe(true);
    // b's failure opens the shared circuit; a, on its lease, sees it once the lease is over.
    const b = replica(stateB, { result: () => reset, calls: 0 }, allowAll, 60_000);
    await b.execute('web_fetch', {});
    await until(async () => (await redis.admin.hget('test:breaker:web_fetch', 'state')) === 'OPEN');
    await until(async () => {
      const result = await a.execute('web_fetch', {});
      return !result.ok && result.error.code === 'CIRCUIT_OPEN';
    }, 5_000);

    // A failure recorded by the replica itself ends its lease's passes at once.
    await redis.admin.del('test:breaker:web_fetch', 'test:rate:web_fetch');
    const stateC = await shared('c', { failureThreshold: 1, cooldownMs: 60_000 });
    const flaky: Behaviour = { result: () => ok, calls: 0 };
    const c = replica(stateC, flaky, allowAll, 60_000);
    expect((await c.execute('web_fetch', {})).ok).toBe(true);
    flaky.result = () => reset;
    expect((await c.execute('web_fetch', {})).ok).toBe(false);
    const calls = flaky.calls;
    const refused = await c.execute('web_fetch', {});
    expect(!refused.ok && refused.error.code).toBe('CIRCUIT_OPEN');
    expect(flaky.calls).toBe(calls);
  }, 30_000);

  it('refill continuously across replicas, as the local bucket does', async () => {
    const stateA = await shared('a');
    const stateB = await shared('b');
    // 60 a minute: one token a second. Drain it through both replicas, then wait for one token.
    const drained = await Promise.all(
      Array.from({ length: 62 }, (_, index) =>
        (index % 2 === 0 ? stateA : stateB).rateLimiter.tryAcquire('web_fetch', 60),
      ),
    );
    expect(drained.filter((decision) => decision.allowed)).toHaveLength(60);
    const refused = drained.find((decision) => !decision.allowed);
    expect(refused && !refused.allowed && refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused && !refused.allowed && refused.retryAfterMs).toBeLessThanOrEqual(1000);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await stateB.rateLimiter.tryAcquire('web_fetch', 60)).allowed).toBe(true);
    expect((await stateA.rateLimiter.tryAcquire('web_fetch', 60)).allowed).toBe(false);
  });

  it('refuse on replica B after replica A opened the breaker, with the local denial text', async () => {
    const stateA = await shared('a', { failureThreshold: 3 });
    const stateB = await shared('b', { failureThreshold: 3 });
    const backendA = { result: () => reset, calls: 0 };
    const backendB = { result: () => ok, calls: 0 };
    const a = replica(stateA, backendA, allowAll);
    const b = replica(stateB, backendB, allowAll);
    for (let call = 0; call < 3; call += 1) await a.execute('web_fetch', {});
    // The failure record is written without waiting; give it its round trip.
    await until(async () => (await redis.admin.hget('test:breaker:web_fetch', 'state')) === 'OPEN');
    const denied = await b.execute('web_fetch', {});
    expect(backendB.calls).toBe(0);
    expect(renderResult(denied)).toBe(
      'Error: [CIRCUIT_OPEN] web_fetch is paused after 3 consecutive failures. Last error: [EXECUTION_FAILED] connection reset. The next probe is allowed in 30 s.\nRetry after: 30 s\nNext: Do not retry web_fetch immediately; use another approach, or wait for the probe.',
    );
  });

  it('let exactly one half-open probe through across both replicas under concurrency', async () => {
    const breaker = { failureThreshold: 1, cooldownMs: 200 };
    const stateA = await shared('a', breaker);
    const stateB = await shared('b', breaker);
    let release: (() => void) | undefined;
    const slow: Behaviour = {
      calls: 0,
      result: () =>
        new Promise<ToolResult>((resolve) => {
          release = () => resolve(ok);
        }),
    };
    const a = replica(stateA, { result: () => reset, calls: 0 }, allowAll);
    await a.execute('web_fetch', {});
    await until(async () => (await redis.admin.hget('test:breaker:web_fetch', 'state')) === 'OPEN');
    await new Promise((resolve) => setTimeout(resolve, 250));
    const probeA = replica(stateA, slow, allowAll);
    const probeB = replica(stateB, slow, allowAll);
    const pending = Array.from({ length: 8 }, (_, index) =>
      (index % 2 === 0 ? probeA : probeB).execute('web_fetch', {}),
    );
    await until(async () => slow.calls > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(slow.calls).toBe(1);
    release?.();
    const results = await Promise.all(pending);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    const denied = results.filter((result) => !result.ok);
    expect(denied).toHaveLength(7);
    for (const result of denied)
      expect(renderResult(result)).toContain('A probe call is running now.');
    // The probe's success closed the shared circuit for both.
    await until(async () => (await redis.admin.exists('test:breaker:web_fetch')) === 0);
  });

  it('honour on replica B a session grant and an "always" grant given on replica A', async () => {
    const asked: string[] = [];
    const confirmA = async () => {
      asked.push('a');
      return 'allow_session' as const;
    };
    const stateA = await shared('a');
    const stateB = await shared('b');
    const a = replica(stateA, { result: () => ok, calls: 0 }, confirmA);
    const noOneOnB = replica(stateB, { result: () => ok, calls: 0 });
    expect((await a.execute('web_fetch', {}, { sessionId: 'session-1' })).ok).toBe(true);
    await until(
      async () =>
        (await redis.admin.sismember(
          `test:perm:session:${sessionDigest('session-1')}`,
          'web_fetch',
        )) === 1,
    );
    expect((await noOneOnB.execute('web_fetch', {}, { sessionId: 'session-1' })).ok).toBe(true);
    const otherSession = await noOneOnB.execute('web_fetch', {}, { sessionId: 'session-2' });
    expect(!otherSession.ok && otherSession.error.code).toBe('PERMISSION_DENIED');
    stateA.permissionStore.allowAlways('web_fetch');
    await until(async () => (await redis.admin.sismember('test:perm:always', 'web_fetch')) === 1);
    expect((await noOneOnB.execute('web_fetch', {}, { sessionId: 'session-2' })).ok).toBe(true);
    expect(asked).toEqual(['a']);
  });

  it('show the recent spans of both replicas, with argument digests and no raw values', async () => {
    const stateA = await shared('a');
    const stateB = await shared('b');
    const a = replica(stateA, { result: () => ok, calls: 0 }, allowAll);
    const b = replica(stateB, { result: () => reset, calls: 0 }, allowAll);
    await a.execute('web_fetch', { url: 'https://secret.example/token=abc' });
    await b.execute('web_fetch', { url: 'https://secret.example/token=abc' });
    await until(async () => (await redis.admin.llen('test:traces')) === 2);
    const spans = (await stateA.traceRing.recent()) ?? [];
    expect(spans.map((span) => [span.replica, span.outcome])).toEqual([
      ['a', 'ok'],
      ['b', 'EXECUTION_FAILED'],
    ]);
    expect(spans[0]?.argsDigest.fields.url).toEqual({ type: 'string', length: 32, printable: 32 });
    expect(JSON.stringify(await redis.admin.lrange('test:traces', 0, -1))).not.toContain('secret');
  });
});
