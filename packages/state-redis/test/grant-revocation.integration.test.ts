import type { ConfirmationDecision } from '@toolsys/core-tool-registry';
import { ToolPermissionManager } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createSharedState, REVOKE_SCRIPT, type SharedState } from '../src/index.js';
import { sessionDigest } from '../src/session-digest.js';
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
    grantRevocationLogLength = 1000,
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
    grantRevocationLogLength,
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

/** How long a cut-off replica stays cut off: its reconnect interval. */
const CUT_OFF_MS = 3000;

/**
 * Cuts a replica off the way a network partition would: Redis closes its command connection and
 * the subscriber connections (the other replica's subscriber is back within 100 ms), and the
 * replica reconnects only after its probe interval ({@link CUT_OFF_MS}).
 */
async function cutOff(state: SharedState): Promise<void> {
  const port = state.connection.redis?.stream.localPort;
  await redis.admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
  await redis.admin.call('CLIENT', 'KILL', 'ADDR', `127.0.0.1:${port}`);
  await until(() => state.status().mode === 'local');
}

/** Waits until the cut-off replica is back and has pushed what it recorded meanwhile. */
async function reconnected(state: SharedState): Promise<void> {
  await until(() => state.status().mode === 'shared', CUT_OFF_MS * 4);
}

/**
 * Replica A (with `optionsA`) and replica B, which reconnects only after {@link CUT_OFF_MS} once
 * cut off; the users of both answer `answer`.
 */
async function withCutOffB(answer: ConfirmationDecision, optionsA?: Parameters<typeof shared>[1]) {
  const stateA = await shared('a', optionsA);
  const stateB = await shared('b', { probeIntervalMs: CUT_OFF_MS });
  return { stateA, stateB, a: permissions(stateA, answer), b: permissions(stateB, answer) };
}

/** Waits until Redis holds the grant of `toolId` for the session `sessionId`. */
async function untilSessionGrantShared(sessionId: string, toolId: string): Promise<void> {
  const key = `grants:perm:session:${sessionDigest(sessionId)}`;
  await until(async () => (await redis.admin.sismember(key, toolId)) === 1);
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
    await untilSessionGrantShared('session-7', 'web_fetch');
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

/** A revokes `tool_0`, which B used, and B drops it on the message: B has seen a version. */
async function seenByB(
  a: ReturnType<typeof permissions>,
  b: ReturnType<typeof permissions>,
  stateB: SharedState,
): Promise<void> {
  await b.authorize('tool_0');
  await until(async () => (await redis.admin.sismember('grants:perm:always', 'tool_0')) === 1);
  expect(await a.authorize('tool_0')).toEqual({ allowed: true, via: 'always' });
  a.manager.revokeAlways('tool_0');
  await until(() => !stateB.permissionStore.isAllowedAlways('tool_0'), 1000);
}

describe('revocations made while a replica was cut off', () => {
  it('drop the grants the replica gave meanwhile for the revoked tool, and push the others', async () => {
    const { stateB, a, b } = await withCutOffB('allow_always');
    await a.authorize('write_file');
    await until(
      async () => (await redis.admin.sismember('grants:perm:always', 'write_file')) === 1,
    );
    await cutOff(stateB);
    expect(await b.authorize('write_file')).toEqual({ allowed: true, via: 'confirmed' });
    expect(await b.authorize('read_notes')).toEqual({ allowed: true, via: 'confirmed' });
    a.manager.revokeAlways('write_file');
    await until(
      async () => (await redis.admin.sismember('grants:perm:always', 'write_file')) === 0,
    );
    // Still cut off: B honours what its user gave, whatever happened elsewhere.
    expect(stateB.status().mode).toBe('local');
    expect(b.manager.decide('write_file', 'MEDIUM', 'session-1')).toEqual({
      allowed: true,
      via: 'always',
    });
    await reconnected(stateB);
    expect(await redis.admin.smembers('grants:perm:always')).toEqual(['read_notes']);
    expect(await b.authorize('read_notes')).toEqual({ allowed: true, via: 'always' });
    expect(await b.authorize('write_file')).toEqual({ allowed: true, via: 'confirmed' });
    expect(b.asked).toEqual(['write_file', 'read_notes', 'write_file']);
  }, 30_000);

  it('drop the grants the replica gave meanwhile in a session forgotten elsewhere', async () => {
    const { stateB, a, b } = await withCutOffB('allow_session');
    await a.authorize('web_fetch', 'session-7');
    await untilSessionGrantShared('session-7', 'web_fetch');
    await cutOff(stateB);
    await b.authorize('run_command', 'session-7');
    await b.authorize('run_command', 'session-8');
    a.manager.endSession('session-7');
    await until(
      async () =>
        (await redis.admin.exists(`grants:perm:session:${sessionDigest('session-7')}`)) === 0,
    );
    expect(stateB.permissionStore.isAllowedForSession('session-7', 'run_command')).toBe(true);
    await reconnected(stateB);
    expect(await redis.admin.exists(`grants:perm:session:${sessionDigest('session-7')}`)).toBe(0);
    expect(await redis.admin.smembers(`grants:perm:session:${sessionDigest('session-8')}`)).toEqual(
      ['run_command'],
    );
    expect(stateB.permissionStore.isAllowedForSession('session-7', 'run_command')).toBe(false);
    expect(await b.authorize('run_command', 'session-8')).toEqual({
      allowed: true,
      via: 'session',
    });
    expect(b.asked).toEqual(['run_command', 'run_command']);
  }, 30_000);

  it('drop every "always" grant the replica gave meanwhile when all of them were revoked', async () => {
    const stateA = await shared('a');
    const stateB = await shared('b', { probeIntervalMs: CUT_OFF_MS });
    const b = permissions(stateB, 'allow_always');
    await stateA.connection.waitUntilShared();
    stateA.permissionStore.allowAlways('write_file');
    await until(
      async () => (await redis.admin.sismember('grants:perm:always', 'write_file')) === 1,
    );
    await cutOff(stateB);
    await b.authorize('read_notes');
    stateB.permissionStore.allowForSession('session-1', 'web_fetch');
    // All "always" grants revoked at once, through the script every replica runs (an empty tool).
    await redis.admin.eval(
      REVOKE_SCRIPT,
      3,
      'grants:perm:always',
      'grants:perm:version',
      'grants:perm:revocations',
      'grants:perm:invalidate',
      'always',
      '',
      '',
      1000,
      86_400_000,
    );
    expect(stateB.permissionStore.isAllowedAlways('read_notes')).toBe(true);
    await reconnected(stateB);
    expect(await redis.admin.exists('grants:perm:always')).toBe(0);
    expect(stateB.permissionStore.isAllowedAlways('read_notes')).toBe(false);
    // A session grant is not an "always" grant: pushed.
    expect(await redis.admin.smembers(`grants:perm:session:${sessionDigest('session-1')}`)).toEqual(
      ['web_fetch'],
    );
  }, 30_000);

  it('drop every grant the replica gave meanwhile when the log no longer reaches back', async () => {
    const { stateB, a, b } = await withCutOffB('allow_always', {
      grantRevocationLogLength: 2,
    });
    await seenByB(a, b, stateB);
    await cutOff(stateB);
    await b.authorize('read_notes');
    // Three revocations of other tools, of which the log keeps the last two.
    for (const toolId of ['tool_1', 'tool_2', 'tool_3']) a.manager.revokeAlways(toolId);
    await until(async () =>
      (await redis.admin.lrange('grants:perm:revocations', 0, -1)).every(
        (entry) => !entry.includes('tool_0') && !entry.includes('tool_1'),
      ),
    );
    expect(await redis.admin.llen('grants:perm:revocations')).toBe(2);
    await reconnected(stateB);
    expect(await redis.admin.exists('grants:perm:always')).toBe(0);
    expect(stateB.permissionStore.isAllowedAlways('read_notes')).toBe(false);
    await b.authorize('read_notes');
    expect(b.asked).toEqual(['tool_0', 'read_notes', 'read_notes']);
  }, 30_000);

  it('drop every grant the replica gave meanwhile when Redis lost its data', async () => {
    const { stateB, a, b } = await withCutOffB('allow_always');
    await seenByB(a, b, stateB);
    await cutOff(stateB);
    await b.authorize('read_notes');
    // Redis loses everything, then counts one revocation again: a version B may have seen before
    // must not pass for the one after it.
    await redis.admin.flushall();
    a.manager.revokeAlways('tool_1');
    await until(async () => (await redis.admin.llen('grants:perm:revocations')) === 1);
    await reconnected(stateB);
    expect(await redis.admin.exists('grants:perm:always')).toBe(0);
    expect(stateB.permissionStore.isAllowedAlways('read_notes')).toBe(false);
  }, 30_000);
});
