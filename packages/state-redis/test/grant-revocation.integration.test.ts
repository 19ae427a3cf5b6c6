import type { ConfirmationDecision } from '@toolsys/core-tool-registry';
import { ToolPermissionManager } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createSharedState, type SharedState } from '../src/index.js';
import { until, useRedis } from './redis-fixture.js';

// Two replicas (two shared states, each with its own ioredis connections) against one real
// redis-server on a private loopback port, kept on disk so that a kill and restart keeps the data.

const STALENESS_MS = 1500;
const redis = useRedis({ persistent: true });
const { opened } = redis;

async function shared(
  replicaId: string,
  {
    probeIntervalMs = 100,
    grantMaxStalenessMs = STALENESS_MS,
    alwaysAllowed = [] as string[],
  } = {},
): Promise<SharedState> {
  const state = createSharedState({
    url: redis.server.url,
    keyPrefix: 'grants:',
    replicaId,
    operationTimeoutMs: 100,
    probeIntervalMs,
    grantMaxStalenessMs,
    alwaysAllowed,
  });
  opened.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  await until(() => state.status().subscriber?.state === 'subscribed');
  return state;
}

/** A replica's permission manager; `asked` lists the tools its user was asked about. */
function permissions(state: SharedState, answer: ConfirmationDecision = 'deny') {
  const asked: string[] = [];
  const manager = new ToolPermissionManager({
    store: state.permissionStore,
    confirm: async (request) => {
      asked.push(request.toolId);
      return answer;
    },
  });
  const authorize = (toolId: string, sessionId = 'session-1') =>
    manager.authorize({ toolId, action: `run ${toolId}`, risk: 'MEDIUM', sessionId });
  return { manager, asked, authorize };
}

describe('grant revocation across replicas', () => {
  it('makes replica B ask again right after replica A revokes an "always" grant', async () => {
    // A window of a minute: only the invalidation message can end the grant within the test.
    const stateA = await shared('a', { grantMaxStalenessMs: 60_000 });
    const stateB = await shared('b', { grantMaxStalenessMs: 60_000 });
    const a = permissions(stateA, 'allow_always');
    const b = permissions(stateB);
    expect(await a.authorize('write_file')).toEqual({ allowed: true, via: 'confirmed' });
    await until(
      async () => (await redis.admin.sismember('grants:perm:always', 'write_file')) === 1,
    );
    // B has never seen it: fetched from Redis, not asked; then honoured from its own copy.
    expect(await b.authorize('write_file')).toEqual({ allowed: true, via: 'always' });
    expect(b.manager.decide('write_file', 'MEDIUM', 'session-1')).toEqual({
      allowed: true,
      via: 'always',
    });
    const revokedAt = performance.now();
    a.manager.revokeAlways('write_file');
    await until(() => !stateB.permissionStore.isAllowedAlways('write_file'), 1000);
    expect(performance.now() - revokedAt).toBeLessThan(1000);
    const verdict = await b.authorize('write_file');
    expect(verdict.allowed).toBe(false);
    expect(b.asked).toEqual(['write_file']);
  });

  it('makes replica B ask again right after replica A forgets a session', async () => {
    const stateA = await shared('a', { grantMaxStalenessMs: 60_000 });
    const stateB = await shared('b', { grantMaxStalenessMs: 60_000 });
    const a = permissions(stateA, 'allow_session');
    const b = permissions(stateB);
    await a.authorize('web_fetch', 'session-7');
    await until(
      async () => (await redis.admin.sismember('grants:perm:session:session-7', 'web_fetch')) === 1,
    );
    expect(await b.authorize('web_fetch', 'session-7')).toEqual({ allowed: true, via: 'session' });
    a.manager.endSession('session-7');
    await until(() => !stateB.permissionStore.isAllowedForSession('session-7', 'web_fetch'), 1000);
    expect((await b.authorize('web_fetch', 'session-7')).allowed).toBe(false);
    expect(b.asked).toEqual(['web_fetch']);
  });

  it('ends the grant on replica B within the staleness window when B missed the message', async () => {
    // B reconnects its subscriber only after 5 s: the revocation's message is lost for it.
    const stateA = await shared('a');
    const stateB = await shared('b', { probeIntervalMs: 5000 });
    const a = permissions(stateA, 'allow_always');
    const b = permissions(stateB);
    await a.authorize('write_file');
    await until(
      async () => (await redis.admin.sismember('grants:perm:always', 'write_file')) === 1,
    );
    expect(await b.authorize('write_file')).toEqual({ allowed: true, via: 'always' });
    await redis.admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await until(() => stateB.status().subscriber?.state === 'connecting');
    const revokedAt = performance.now();
    a.manager.revokeAlways('write_file');
    await until(
      async () => (await redis.admin.sismember('grants:perm:always', 'write_file')) === 0,
    );
    await until(() => !stateB.permissionStore.isAllowedAlways('write_file'), STALENESS_MS * 2);
    expect(stateB.status().subscriber?.state).toBe('connecting');
    expect(performance.now() - revokedAt).toBeLessThanOrEqual(STALENESS_MS + 200);
    expect((await b.authorize('write_file')).allowed).toBe(false);
    expect(b.asked).toEqual(['write_file']);
  });

  it('fails closed while Redis is down, and pushes a revocation made meanwhile when it returns', async () => {
    const stateA = await shared('a');
    const stateB = await shared('b');
    const a = permissions(stateA, 'allow_always');
    const b = permissions(stateB);
    await a.authorize('write_file');
    await a.authorize('read_notes');
    await until(async () => (await redis.admin.scard('grants:perm:always')) === 2);
    expect(await b.authorize('write_file')).toEqual({ allowed: true, via: 'always' });
    await redis.server.kill();
    const downAt = performance.now();
    await until(() => stateA.status().mode === 'local' && stateB.status().mode === 'local');
    a.manager.revokeAlways('write_file');
    // B cannot learn of it; it stops trusting its copy within the window and asks its user.
    await until(() => !stateB.permissionStore.isAllowedAlways('write_file'), STALENESS_MS * 2);
    expect(performance.now() - downAt).toBeLessThanOrEqual(STALENESS_MS + 200);
    expect((await b.authorize('write_file')).allowed).toBe(false);
    expect(b.asked).toEqual(['write_file']);
    await redis.server.restart();
    await until(() => stateA.status().mode === 'shared' && stateB.status().mode === 'shared');
    // The data survived the restart (a grant given before the outage is still there) and A's
    // revocation was pushed on resync.
    expect(await redis.admin.sismember('grants:perm:always', 'read_notes')).toBe(1);
    expect(await redis.admin.sismember('grants:perm:always', 'write_file')).toBe(0);
    expect(Number(await redis.admin.get('grants:perm:version'))).toBeGreaterThan(0);
    b.manager.beginTurn('session-1');
    expect((await b.authorize('write_file')).allowed).toBe(false);
    expect(b.asked).toEqual(['write_file', 'write_file']);
  }, 30_000);

  it('keeps honouring the grants of its own configuration while Redis is down', async () => {
    const state = await shared('a', { alwaysAllowed: ['read_notes'] });
    const a = permissions(state);
    await redis.server.kill();
    try {
      await until(() => state.status().mode === 'local');
      await new Promise((resolve) => setTimeout(resolve, STALENESS_MS + 200));
      expect(await a.authorize('read_notes')).toEqual({ allowed: true, via: 'always' });
      expect(a.asked).toEqual([]);
    } finally {
      await redis.server.restart();
    }
  }, 30_000);

  it('keeps honouring a grant while Redis confirms it, with no round trip on the call path', async () => {
    const stateA = await shared('a');
    const stateB = await shared('b');
    const a = permissions(stateA, 'allow_always');
    await a.authorize('write_file');
    await until(
      async () => (await redis.admin.sismember('grants:perm:always', 'write_file')) === 1,
    );
    const b = permissions(stateB);
    await b.authorize('write_file');
    // Past several windows, the background confirmation keeps B's copy valid: decided locally.
    await new Promise((resolve) => setTimeout(resolve, STALENESS_MS * 2));
    expect(b.manager.decide('write_file', 'MEDIUM', 'session-1')).toEqual({
      allowed: true,
      via: 'always',
    });
    expect(b.asked).toEqual([]);
  });
});
