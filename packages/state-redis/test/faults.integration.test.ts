import {
  createToolExecutor,
  defineTool,
  RunPolicies,
  ToolHints,
  ToolRegistry,
  type ToolResult,
  ToolSchema,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { type RedisProcess, startRedis } from '@toolsys/test-support';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSharedState, type SharedState } from '../src/index.js';
import { until } from './redis-fixture.js';

/** How long a replica may take to switch between shared and local state on this machine. */
const SETTLE_MS = 10_000;

// Redis killed (SIGKILL), restarted on the same port, and made slow (DEBUG SLEEP on another
// connection), against a real redis-server on a private loopback port.

const BOUND_MS = 100;
let server: RedisProcess;
const opened: SharedState[] = [];
const clients: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
}, 30_000);

afterEach(async () => {
  for (const state of opened.splice(0)) await state.close();
  for (const client of clients.splice(0)) client.disconnect();
});

afterAll(async () => {
  await server?.stop();
});

async function shared(replicaId: string): Promise<SharedState> {
  const state = createSharedState({
    url: server.url,
    keyPrefix: 'faults:',
    replicaId,
    operationTimeoutMs: BOUND_MS,
    probeIntervalMs: 100,
  });
  opened.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  return state;
}

function executor(state: SharedState, ratePerMinute = 1000) {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      id: 'read_thing',
      description: 'fixture',
      inputSchema: ToolSchema.object({ n: z.number().optional() }),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
      runPolicy: { ...RunPolicies.quickRead, ratePerMinute },
      execute: (): ToolResult => ({ ok: true, content: 'ok' }),
    }),
  );
  const traces = new ToolTraceRecorder();
  state.traceRing.attach(traces);
  return createToolExecutor({
    registry,
    rateLimiter: state.rateLimiter,
    circuitBreaker: state.circuitBreaker,
    traces,
    runPolicies: {},
  });
}

async function timed(run: () => Promise<ToolResult>): Promise<{ result: ToolResult; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

describe('Redis faults', () => {
  it('keeps calls flowing on local state when Redis is killed, and shares again after a restart', async () => {
    const state = await shared('a');
    const run = executor(state);
    expect((await run.execute('read_thing', {})).ok).toBe(true);
    await server.kill();
    // Every call completes, within the bound (generous headroom for a loaded machine).
    for (let call = 0; call < 20; call += 1) {
      const { result, ms } = await timed(() => run.execute('read_thing', {}));
      expect(result.ok).toBe(true);
      expect(ms).toBeLessThan(BOUND_MS * 20);
    }
    await until(() => state.status().mode === 'local', SETTLE_MS);
    // A grant given while Redis is down stays local, and is pushed when Redis returns.
    state.permissionStore.allowAlways('write_file');
    const fallen = state.status();
    expect(fallen.mode).toBe('local');
    expect(fallen.lastError).toBeTruthy();
    expect(fallen.since).toBeGreaterThan(Date.now() - 60_000);
    // Spans recorded meanwhile are kept and pushed on resync.
    await server.restart();
    await until(() => state.status().mode === 'shared', SETTLE_MS);
    const admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
    clients.push(admin);
    await until(async () => (await admin.llen('faults:traces')) >= 20, SETTLE_MS);
    expect(await admin.sismember('faults:perm:always', 'write_file')).toBe(1);
    // Shared again: the bucket is in Redis.
    expect((await run.execute('read_thing', {})).ok).toBe(true);
    expect(await admin.exists('faults:rate:read_thing')).toBe(1);
  }, 60_000);

  it('answers from local state within the bound while Redis is slow, then shares again', async () => {
    const state = await shared('a');
    const run = executor(state);
    expect((await run.execute('read_thing', {})).ok).toBe(true);
    const blocker = new Redis(server.url, { maxRetriesPerRequest: 0, commandTimeout: 10_000 });
    clients.push(blocker);
    expect(await blocker.ping()).toBe('PONG');
    const sleeping = blocker.call('DEBUG', 'SLEEP', '1.5').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const durations: number[] = [];
    for (let call = 0; call < 10; call += 1) {
      const { result, ms } = await timed(() => run.execute('read_thing', {}));
      expect(result.ok).toBe(true);
      durations.push(ms);
    }
    // The first call waits out the bound (on a loaded machine, allow 10×), later ones none.
    expect(Math.max(...durations)).toBeLessThan(BOUND_MS * 10);
    expect(state.status().mode).toBe('local');
    await sleeping;
    await until(() => state.status().mode === 'shared', SETTLE_MS);
  }, 60_000);

  it('keeps limiter, breaker, grants and trace ring bounded while Redis is frozen, then shares again', async () => {
    const state = await shared('frozen');
    const run = executor(state, 5);
    expect((await run.execute('read_thing', {})).ok).toBe(true);
    const admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
    clients.push(admin);
    await admin.del('faults:traces');
    server.pause();
    try {
      const durations: number[] = [];
      const outcomes: boolean[] = [];
      for (let call = 0; call < 8; call += 1) {
        const { result, ms } = await timed(() => run.execute('read_thing', {}));
        outcomes.push(result.ok);
        durations.push(ms);
      }
      const fetched = await timed(async () => {
        await state.permissionStore.fetch('session-1', 'write_file');
        return { ok: true, content: '' } as ToolResult;
      });
      // Every call settles; only the first waits out the bound (10× headroom on a loaded machine).
      expect(Math.max(...durations, fetched.ms)).toBeLessThan(BOUND_MS * 10);
      expect(state.status().mode).toBe('local');
      // The local limiter applies the quota on its own (5 a minute; the first call was shared).
      expect(outcomes.filter(Boolean).length).toBeLessThanOrEqual(5);
      expect(outcomes.filter(Boolean).length).toBeGreaterThanOrEqual(4);
    } finally {
      server.resume();
    }
    await until(() => state.status().mode === 'shared', SETTLE_MS);
    // The spans of the frozen period reach the shared ring once Redis answers again.
    await until(async () => (await admin.llen('faults:traces')) >= 8, SETTLE_MS);
    expect(state.status().subscriber?.state).toBe('subscribed');
  }, 60_000);

  it('starts on local state when Redis is not reachable at all', async () => {
    const state = createSharedState({
      url: 'redis://127.0.0.1:1',
      operationTimeoutMs: BOUND_MS,
      probeIntervalMs: 100,
    });
    opened.push(state);
    const run = executor(state, 2);
    const results = await Promise.all([1, 2, 3].map(() => run.execute('read_thing', {})));
    // The local limiter still applies its quota on this replica.
    expect(results.map((result) => result.ok)).toEqual([true, true, false]);
    expect(state.status()).toMatchObject({
      mode: 'local',
      url: 'redis://127.0.0.1:1',
      subscriber: { state: 'connecting' },
    });
  });
});
