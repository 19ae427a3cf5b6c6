import { describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL } from '../server/principal.js';
import { cookieHeader, DashboardSessions, parseCookies } from './dashboard-sessions.js';

describe('dashboard sign-in cookies', () => {
  it('are HttpOnly, and Secure only when the public URL is https', () => {
    expect(cookieHeader('a', 'v', { maxAge: 60, sameSite: 'Strict', secure: true })).toBe(
      'a=v; Path=/; Max-Age=60; HttpOnly; SameSite=Strict; Secure',
    );
    expect(cookieHeader('a', '', { maxAge: 0, sameSite: 'Lax', path: '/x', secure: false })).toBe(
      'a=; Path=/x; Max-Age=0; HttpOnly; SameSite=Lax',
    );
  });

  it('reads the first cookie of a name and ignores pieces without a name', () => {
    expect([...parseCookies('=x; a=1; b = 2 ; a=3; junk')]).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
  });
});

describe('DashboardSessions', () => {
  it('forgets a sign-in once its time is up, and one signed out', () => {
    let now = 1_000;
    const sessions = new DashboardSessions({ ttlMs: 100, now: () => now });
    const first = sessions.create(LOCAL_PRINCIPAL);
    const second = sessions.create(LOCAL_PRINCIPAL);
    expect(first.id).not.toBe(second.id);
    expect(first.session.csrf).not.toBe(second.session.csrf);
    expect(sessions.get(first.id)?.principal).toBe(LOCAL_PRINCIPAL);
    sessions.delete(second.id);
    expect(sessions.get(second.id)).toBeUndefined();
    now += 100;
    expect(sessions.get(first.id)).toBeUndefined();
  });

  it('keeps at most maxSessions, dropping the oldest', () => {
    const sessions = new DashboardSessions({ maxSessions: 2 });
    const ids = [1, 2, 3].map(() => sessions.create(LOCAL_PRINCIPAL).id);
    expect(ids.map((id) => sessions.get(id) !== undefined)).toEqual([false, true, true]);
  });
});
