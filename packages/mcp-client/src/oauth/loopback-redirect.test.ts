import { afterEach, describe, expect, it } from 'vitest';
import { LoopbackRedirect } from './loopback-redirect.js';

let redirect: LoopbackRedirect | undefined;
afterEach(async () => {
  await redirect?.close();
});

describe('LoopbackRedirect', () => {
  it('listens on 127.0.0.1 and answers the authorization with the redirect query', async () => {
    const shown: string[] = [];
    redirect = await LoopbackRedirect.start({ show: (url) => shown.push(url.href) });
    expect(redirect.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const answer = redirect.authorize(new URL('https://as.example.com/authorize?x=1'), '');
    expect(shown).toEqual(['https://as.example.com/authorize?x=1']);
    // Another path is not the callback.
    expect((await fetch(redirect.redirectUrl.replace('/callback', '/other?code=x'))).status).toBe(
      404,
    );
    expect((await fetch(`${redirect.redirectUrl}?code=c1&state=s1`)).status).toBe(200);
    expect(Object.fromEntries(await answer)).toEqual({ code: 'c1', state: 's1' });
    // One redirect only: a second one is not taken.
    expect((await fetch(`${redirect.redirectUrl}?code=c2&state=s1`)).status).toBe(404);
  });

  it('gives up after its time limit', async () => {
    redirect = await LoopbackRedirect.start({ show: () => undefined, timeoutMs: 50 });
    await expect(redirect.authorize(new URL('https://as.example.com/a'), '')).rejects.toThrow(
      'no sign-in completed',
    );
  });
});
