import { randomUUID } from 'node:crypto';
import { createSharedState, type SharedState } from '@toolsys/state-redis';
import { type RedisProcess, startRedis } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 30 item 11: Redis key names listed live session ids (`…:perm:session:mcp-b.<uuid>`), so
// anyone allowed to list keys learnt the ids that name other users' sessions. Keys (and the
// revocation log) carry a digest of the id instead.

let redis: RedisProcess;
const states: SharedState[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const state of states) await state.close();
  await redis?.stop();
});

async function replica(replicaId: string): Promise<SharedState> {
  const state = createSharedState({
    url: redis.url,
    keyPrefix: 'keys:',
    replicaId,
    operationTimeoutMs: 1000,
    warn: () => {},
  });
  states.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  return state;
}

/** Every key and every value in Redis, as `redis-cli` prints them. */
async function everything(): Promise<string> {
  const keys = (await redis.cli('KEYS', '*')).split('\n').filter((key) => key !== '');
  const parts = [...keys];
  for (const key of keys) {
    const type = await redis.cli('TYPE', key);
    if (type === 'string') parts.push(await redis.cli('GET', key));
    else if (type === 'set') parts.push(await redis.cli('SMEMBERS', key));
    else if (type === 'list') parts.push(await redis.cli('LRANGE', key, '0', '-1'));
    else if (type === 'hash') parts.push(await redis.cli('HGETALL', key));
    else if (type === 'zset') parts.push(await redis.cli('ZRANGE', key, '0', '-1'));
  }
  return parts.join('\n');
}

describe('session ids in Redis', () => {
  it('KEYS * and the revocation log reveal no session id, and grants still reach another replica', async () => {
    const one = await replica('mcp-a');
    const two = await replica('mcp-b');
    const uuids = [randomUUID(), randomUUID()];
    const [live, ended] = uuids.map((uuid) => `mcp-b.${uuid}`) as [string, string];
    two.permissionStore.allowForSession(live, 'write_file');
    two.permissionStore.allowForSession(ended, 'shell_execute');
    await new Promise((resolve) => setTimeout(resolve, 150));
    two.permissionStore.forgetSession(ended);
    await new Promise((resolve) => setTimeout(resolve, 150));

    const keys = await redis.cli('KEYS', '*');
    expect(keys).toContain('keys:perm:session:');
    const stored = await everything();
    for (const uuid of uuids) expect(stored, 'keys and values').not.toContain(uuid);
    expect(stored).not.toContain('mcp-b.');

    // The other replica finds the live session's grant from the id alone; the ended one is gone.
    expect(await one.permissionStore.fetch(live, 'write_file')).toBe('allowed_session');
    expect(await one.permissionStore.fetch(ended, 'shell_execute')).toBeUndefined();
  });
});
