import type {
  CallPrincipal,
  ConfirmationDecision,
  ConfirmationRequest,
} from '@toolsys/core-tool-registry';
import { ToolPermissionManager } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createSharedState, type SharedState } from '../src/index.js';
import { until, useRedis } from './redis-fixture.js';

// Two replicas against one real redis-server: grants travel between replicas, but only ever for
// the principal who gave them.

const redis = useRedis();
const { opened } = redis;

const ALICE: CallPrincipal = { id: 'alice@example.com', kind: 'oauth', scopes: [] };
const BOB: CallPrincipal = { id: 'bob', kind: 'token', scopes: ['*'] };

async function replica(replicaId: string): Promise<SharedState> {
  const state = createSharedState({
    url: redis.server.url,
    keyPrefix: 'who:',
    replicaId,
    operationTimeoutMs: 100,
    probeIntervalMs: 100,
  });
  opened.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  await until(() => state.status().subscriber?.state === 'subscribed');
  return state;
}

/** A replica's permission manager whose users answer from `answers`; `asked` lists who was asked. */
function permissions(state: SharedState, ...answers: ConfirmationDecision[]) {
  const asked: string[] = [];
  const manager = new ToolPermissionManager({
    store: state.permissionStore,
    confirm: async (request: ConfirmationRequest) => {
      asked.push(`${request.principal?.id} ${request.toolId}`);
      return answers.shift() ?? 'deny';
    },
  });
  const authorize = (principal: CallPrincipal, sessionId: string, toolId = 'write_file') =>
    manager.authorize({ toolId, action: `run ${toolId}`, risk: 'MEDIUM', sessionId, principal });
  return { asked, authorize };
}

/** Every key and member Redis holds under the test prefix, as one text. */
async function everythingStored(): Promise<string> {
  const keys = await redis.admin.keys('who:*');
  const parts: string[] = [...keys];
  for (const key of keys) {
    if ((await redis.admin.type(key)) === 'set') parts.push(...(await redis.admin.smembers(key)));
  }
  return parts.join('\n');
}

describe('grants shared through Redis per principal', () => {
  it('carries a user\'s "always" answer to the other replica for that user only', async () => {
    const a = permissions(await replica('a'), 'allow_always');
    const b = permissions(await replica('b'));
    expect(await a.authorize(ALICE, 's1')).toEqual({ allowed: true, via: 'confirmed' });
    await until(async () => (await everythingStored()).includes(':write_file'));
    expect(await b.authorize(ALICE, 's7')).toEqual({ allowed: true, via: 'always' });
    expect((await b.authorize(BOB, 's8')).allowed).toBe(false);
    expect(b.asked).toEqual(['bob write_file']);
  });

  it('carries a session grant to the other replica, never to another principal with that id', async () => {
    const a = permissions(await replica('a'), 'allow_session');
    const b = permissions(await replica('b'));
    await a.authorize(ALICE, 'shared-session-id');
    await until(async () => (await redis.admin.keys('who:perm:session:*')).length === 1);
    expect(await b.authorize(ALICE, 'shared-session-id')).toEqual({
      allowed: true,
      via: 'session',
    });
    expect((await b.authorize(BOB, 'shared-session-id')).allowed).toBe(false);
    expect(b.asked).toEqual(['bob write_file']);
  });

  it('keeps principal ids out of every key and member Redis holds', async () => {
    const a = permissions(await replica('a'), 'allow_always', 'allow_session');
    await a.authorize(ALICE, 's1');
    await a.authorize(ALICE, 's2', 'edit_file');
    await until(async () => (await redis.admin.keys('who:perm:session:*')).length === 1);
    const stored = await everythingStored();
    expect(stored).toContain('write_file');
    expect(stored).not.toContain('alice');
  });
});
