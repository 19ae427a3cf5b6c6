import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserHarness,
  createBrowserHarness,
  type PageServer,
  servePages,
} from './support/browser.js';

// A hostile page whose script never yields (a busy loop) after the model read it. Before, a
// browser_snapshot of it took 50 s while its message said "longer than 25 s", and an action on it
// ran to the pipeline's 60 s. Every call on such a page must end at its own time limit (the read
// limit for a snapshot, the action limit for an action), saying how long it really took.

const ACTION_MS = 3_000;
const READ_MS = 4_000;
/** Slack for a loaded 2-core machine; far below the 60 s the calls took before. */
const SLACK_MS = 6_000;

const PAGES = {
  // The loop starts a moment after the click, so the click itself answers.
  '/busy': `<!doctype html><title>Busy</title>
    <button onclick="setTimeout(() => { const end = Date.now() + 45000; while (Date.now() < end) {} }, 300)">Freeze</button>
    <button>Other</button>`,
  // The loop starts a moment after the page is scrolled, an action that reads no tree.
  '/busy-on-scroll': `<!doctype html><title>Busy on scroll</title>
    <button>Other</button><div style="height: 5000px"></div>
    <script>addEventListener('scroll', () => setTimeout(() => { const end = Date.now() + 45000; while (Date.now() < end) {} }, 300), { once: true });</script>`,
};

let harness: BrowserHarness;
let server: PageServer;

beforeAll(async () => {
  harness = await createBrowserHarness({ actionTimeoutMs: ACTION_MS, readTimeoutMs: READ_MS });
  server = await servePages(PAGES);
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await server?.close();
}, 60_000);

/** Opens the page in `session`, freezes it, and returns the ref of its other button. */
async function freeze(session: string): Promise<string> {
  await harness.text('browser_navigate', { url: `${server.origin}/busy` }, session);
  const snapshot = await harness.text('browser_snapshot', {}, session);
  const freezeRef = /button "Freeze" \[ref=(e\d+)\]/.exec(snapshot)?.[1];
  const otherRef = /button "Other" \[ref=(e\d+)\]/.exec(snapshot)?.[1];
  expect(freezeRef && otherRef, snapshot).toBeTruthy();
  const clicked = await harness.text(
    'browser_click',
    { ref: freezeRef, snapshot: 'none' },
    session,
  );
  expect(clicked).toMatch(/^Clicked button "Freeze"/);
  await new Promise((resolve) => setTimeout(resolve, 800));
  return otherRef as string;
}

/** The seconds a message says the call took (`stopped after 4.1 s`). */
function statedMs(message: string): number {
  const match = /stopped after (\d+(?:\.\d+)?) (s|ms)/.exec(message);
  expect(match, message).not.toBeNull();
  const value = Number(match?.[1]);
  return match?.[2] === 's' ? value * 1000 : value;
}

/** Clicks `ref` on the stalled page: the call ends with TIMEOUT at the action limit, saying so. */
async function expectClickEndsAtActionLimit(ref: string, session: string): Promise<void> {
  const started = performance.now();
  const result = await harness.call('browser_click', { ref }, session);
  const elapsed = performance.now() - started;
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe('TIMEOUT');
  expect(elapsed).toBeLessThan(ACTION_MS + SLACK_MS);
  expect(Math.abs(statedMs(result.error.message) - elapsed)).toBeLessThan(2_000);
}

describe('a page whose script never yields', () => {
  it('browser_snapshot ends at the read limit and states the time it really took', async () => {
    await freeze('busy-snapshot');
    const started = performance.now();
    const result = await harness.call('browser_snapshot', {}, 'busy-snapshot');
    const elapsed = performance.now() - started;
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('TIMEOUT');
    expect(result.error.message).toContain(`took longer than ${READ_MS / 1000} s`);
    expect(elapsed).toBeGreaterThanOrEqual(READ_MS - 100);
    expect(elapsed).toBeLessThan(READ_MS + SLACK_MS);
    expect(Math.abs(statedMs(result.error.message) - elapsed)).toBeLessThan(2_000);
  }, 90_000);

  it('an action ends at the action limit, not at the pipeline limit', async () => {
    const other = await freeze('busy-action');
    await expectClickEndsAtActionLimit(other, 'busy-action');
  }, 90_000);

  it('an action whose target check is the first read of the stalled page ends at the action limit', async () => {
    const session = 'busy-target';
    await harness.text('browser_navigate', { url: `${server.origin}/busy-on-scroll` }, session);
    const other = /button "Other" \[ref=(e\d+)\]/.exec(
      await harness.text('browser_snapshot', {}, session),
    )?.[1];
    expect(other).toBeDefined();
    const scrolled = await harness.text('browser_scroll', { snapshot: 'none' }, session);
    expect(scrolled).toMatch(/^Scrolled the page down/);
    await new Promise((resolve) => setTimeout(resolve, 800));
    await expectClickEndsAtActionLimit(other as string, session);
  }, 90_000);
});
