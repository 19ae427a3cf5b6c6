import { describe, expect, it } from 'vitest';
import { DeploymentKey } from '../deployment-key.js';
import { LocalRevocations, SealedDashboardSignIns } from './sealed-sign-ins.js';

const alice = { id: 'alice', kind: 'oauth', clientId: 'ide', scopes: ['tools:read'] } as const;

function signIns(now: () => number, key = DeploymentKey.generate()) {
  return new SealedDashboardSignIns({
    key,
    revocations: new LocalRevocations(now),
    ttlMs: 1_000,
    now,
  });
}

describe('SealedDashboardSignIns', () => {
  it('opens its own cookie to the principal, client, scopes and expiry it sealed', async () => {
    const sessions = signIns(() => 5_000);
    const { id, session } = await sessions.create(alice);
    expect(await sessions.get(id)).toEqual(session);
    expect(session).toMatchObject({ principal: alice, expiresAt: 6_000 });
    expect(id).not.toContain('alice');
  });

  it('refuses a cookie once it has expired', async () => {
    let now = 5_000;
    const sessions = signIns(() => now);
    const { id } = await sessions.create(alice);
    now = 5_999;
    expect(await sessions.get(id)).toBeDefined();
    now = 6_000;
    expect(await sessions.get(id)).toBeUndefined();
  });

  it('refuses a signed-out cookie, and only that one', async () => {
    const sessions = signIns(() => 5_000);
    const first = await sessions.create(alice);
    const second = await sessions.create(alice);
    await sessions.delete(first.id);
    expect(await sessions.get(first.id)).toBeUndefined();
    expect(await sessions.get(second.id)).toBeDefined();
    expect(first.session.csrf).not.toBe(second.session.csrf);
  });

  it('opens a cookie of another process holding the same key, and no other', async () => {
    const key = DeploymentKey.generate();
    const { id } = await signIns(() => 5_000, key).create(alice);
    const sameKey = DeploymentKey.parse(key.export(), 'test');
    expect(await signIns(() => 5_000, sameKey).get(id)).toMatchObject({ principal: alice });
    expect(await signIns(() => 5_000).get(id)).toBeUndefined();
  });
});
