import { type RedisProcess, startRedis } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../src/server/principal.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

// Two replicas (each its own deployment) sharing one real redis-server: a principal's quota
// counts its calls on both, and one principal using it up leaves another its own.

const ALICE: Principal = { id: 'alice', kind: 'oauth', scopes: [] };
const BOB: Principal = { id: 'bob', kind: 'oauth', scopes: [] };

let redis: RedisProcess;
const replicas: TestHost[] = [];

beforeAll(async () => {
  redis = await startRedis();
  for (const replicaId of ['a', 'b']) {
    const host = await createTestHost({
      state: { redis: { url: redis.url, keyPrefix: 'quota:', replicaId } },
      limits: { perPrincipal: { callsPerMinute: 4 } },
    });
    replicas.push(host);
    await host.deployment.stack.scaleOut.sharedState?.connection.waitUntilShared(5000);
  }
}, 60_000);

afterAll(async () => {
  for (const host of replicas) await host.dispose();
  await redis?.stop();
});

function call(host: TestHost | undefined, principal: Principal) {
  if (!host) throw new Error('no replica');
  return host.host.call(
    'test_structured',
    { name: 'x' },
    {
      source: 'mcp',
      sessionId: `${principal.id}-session`,
      principal,
    },
  );
}

describe('limits.perPrincipal with state.redis', { timeout: 60_000 }, () => {
  it("counts a principal's calls on every replica and leaves other principals theirs", async () => {
    const [a, b] = replicas;
    for (const host of [a, b, a, b]) expect((await call(host, ALICE)).ok).toBe(true);
    const refused = await call(b, ALICE);
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'RATE_LIMITED',
        details: { quota: 'principal', principal: 'alice', ratePerMinute: 4 },
      },
    });
    if (refused.ok) throw new Error('expected a failure');
    expect(refused.error.retryAfterMs).toBeGreaterThan(0);
    for (const host of [a, b]) expect((await call(host, BOB)).ok).toBe(true);
  });
});
