import { renderResult } from '@toolsys/core-tool-registry';
import { createUtilityTools } from '@toolsys/core-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserHarness,
  createBrowserHarness,
  type PageServer,
  servePages,
} from './support/browser.js';
import { expectResponsiveDuring } from './support/responsiveness.js';

// A prompt-injected model searching a hostile (or secret-holding) page with browser_snapshot's
// `find` and browser_network_log's `filter`, against a real Chromium: a pattern must never hold
// the server, and a search must never tell apart what the result does not show.

const SECRET = 'sk-live-4242';
// 24 letters hold a backtracking engine ~1.5 s (29: 52 s); the linear engine, a few ms.
const A_LINE = `${'a'.repeat(24)}!`;

const PAGES = {
  '/redos': `<!doctype html><title>Letters</title><p>${A_LINE}</p><p>plain text</p>`,
  '/secret': `<!doctype html><title>Account</title><p>Your API key is ${SECRET} (keep it safe)</p><p>${'x'.repeat(115)}${SECRET}${' tail'.repeat(10)}</p><script>fetch('/data?q=${SECRET}').catch(() => {});</script>`,
};

let harness: BrowserHarness;
let server: PageServer;

beforeAll(async () => {
  harness = await createBrowserHarness({ redact: [SECRET], extraTools: createUtilityTools() });
  server = await servePages(PAGES);
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await server?.close();
}, 60_000);

/**
 * Another session's call, after a short timer: a blocked event loop shows however the work and
 * the pings interleave in this one process (the timer fires late), not only when a call is in flight.
 */
const ping = async () => {
  await new Promise((resolve) => setTimeout(resolve, 20));
  return harness.call('get_time', {}, 'other-session');
};
const PINGING = { intervalMs: 0 } as const;

describe('browser_snapshot find: patterns from the model', () => {
  it('a catastrophic pattern on a page line holds no other session', async () => {
    await harness.text('browser_navigate', { url: `${server.origin}/redos` }, 'redos');
    const text = await expectResponsiveDuring(
      () => harness.text('browser_snapshot', { find: '(a+)+$', regex: true }, 'redos'),
      ping,
      PINGING,
    );
    // The linear engine gives the right answer (no line ends in a run of a's).
    expect(text).toContain('No node matches');
  }, 60_000);

  it('lookahead and backreferences are refused with the field named, not run', async () => {
    await harness.text('browser_navigate', { url: `${server.origin}/redos` }, 'redos-2');
    for (const find of ['(a+)\\1', '(?=a)a']) {
      const text = await harness.text('browser_snapshot', { find, regex: true }, 'redos-2');
      expect(text).toMatch(/^Error: \[INVALID_ARGUMENT\] find: /);
    }
  }, 60_000);
});

describe('browser_snapshot find and network filter: no oracle on redacted secrets', () => {
  const snapshot = (args: Record<string, unknown>) =>
    harness.call('browser_snapshot', args, 'secret');

  beforeAll(async () => {
    await harness.text('browser_navigate', { url: `${server.origin}/secret` }, 'secret');
  }, 60_000);

  it('a prefix of the secret finds nothing, as a wrong prefix does', async () => {
    for (const [find, regex] of [
      [SECRET.slice(0, 9), false],
      [`${SECRET.slice(0, 9)}\\d`, true],
      ['sk-live-4[0-9]{3}', true],
      [SECRET, false],
    ] as const) {
      const hit = renderResult(await snapshot({ find, regex }));
      const miss = renderResult(await snapshot({ find: find.replace('sk', 'zq'), regex }));
      expect(hit, find).toContain('No node matches');
      expect(hit.replace('sk', 'zq'), find).toBe(miss);
    }
  }, 60_000);

  it('the shown text is what find searches: "[redacted]" is found, the secret never shown in part', async () => {
    const text = renderResult(await snapshot({ find: 'redacted' }));
    expect(text).toContain('Your API key is [redacted]');
    // The long line is shortened after redaction: no head of the secret is left at the cut.
    expect(text).not.toMatch(/sk-l/);
    const whole = renderResult(await snapshot({}));
    expect(whole).not.toMatch(/sk-l/);
  }, 60_000);

  it('the network log filter counts only what it shows', async () => {
    const secretCount = renderResult(
      await harness.call('browser_network_log', { filter: SECRET.slice(0, 9) }, 'secret'),
    );
    const wrongCount = renderResult(
      await harness.call('browser_network_log', { filter: 'zq-live-4' }, 'secret'),
    );
    expect(secretCount).toBe(wrongCount);
    const shown = renderResult(
      await harness.call('browser_network_log', { filter: '[redacted]' }, 'secret'),
    );
    expect(shown).toMatch(/^1 request matches/);
  }, 60_000);
});
