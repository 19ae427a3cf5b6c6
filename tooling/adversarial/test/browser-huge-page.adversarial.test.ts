import { createUtilityTools } from '@toolsys/core-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserHarness,
  createBrowserHarness,
  type PageServer,
  servePages,
} from './support/browser.js';
import { whilePinging } from './support/responsiveness.js';

// A hostile page of 200,000 nodes (100,000 list items, each with its text) read with
// browser_snapshot and its find. Before, the tree was normalised, listed, collapsed and searched in
// one go on the event loop: 0.7–1.2 s on a loaded 2-core machine during which no other session was
// answered. The work now runs in slices that give the event loop a turn.
//
// One pause remains and is allowed here: the tree crosses from the browser in one protocol
// message, which Playwright (in this process) decodes in one go (0.6–0.9 s for this page on the
// same machine). The test therefore asserts that the event loop is held for long at most once,
// where before it was held twice (the decoding, then the tools' own work).

const ROWS = 100_000;
// Built in the page (the HTML stays small): one list item and one text node per row.
const PAGE = `<!doctype html><title>Huge</title><h1>Huge</h1><ul id="list"></ul><script>
  const list = document.getElementById('list');
  const items = [];
  for (let i = 0; i < ${ROWS}; i++) items.push('<li>Row ' + i + ' of the huge list</li>');
  list.innerHTML = items.join('');
</script>`;

/** A pause of the event loop this long is a stall (slices take ~12 ms; GC pauses stay far below). */
const STALL_MS = 400;

let harness: BrowserHarness;
let server: PageServer;

beforeAll(async () => {
  harness = await createBrowserHarness({ extraTools: createUtilityTools(), readTimeoutMs: 60_000 });
  server = await servePages({ '/huge': PAGE });
  // The browser and the tokenizer are warm before anything is measured.
  await harness.text('browser_navigate', { url: `${server.origin}/huge`, maxTokens: 200 }, 'huge');
}, 180_000);

afterAll(async () => {
  await harness?.close();
  await server?.close();
}, 60_000);

const ping = () => harness.call('get_time', {}, 'other-session');

/** Runs `work` while another session pings, and lists the event loop's pauses over STALL_MS. */
async function measure(work: () => Promise<string>) {
  const stalls: number[] = [];
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    if (now - last > STALL_MS) stalls.push(Math.round(now - last));
    last = now;
    timer = setTimeout(tick, 1);
  };
  tick();
  try {
    const seen = await whilePinging(work, ping);
    return { ...seen, stalls };
  } finally {
    clearTimeout(timer);
  }
}

describe('a page of 200,000 nodes', () => {
  it('browser_snapshot holds the event loop for long at most once (the decoding of the tree)', async () => {
    const seen = await measure(() => harness.text('browser_snapshot', {}, 'huge'));
    expect(seen.result).toContain('- listitem: Row 0 of the huge list');
    expect(seen.result).toMatch(/… 99,?99\d more listitem items like the above/);
    expect(seen.pings).toBeGreaterThan(1);
    expect(
      seen.stalls.length,
      `pauses over ${STALL_MS} ms: ${seen.stalls.join(', ')}`,
    ).toBeLessThanOrEqual(1);
  }, 180_000);

  it('browser_snapshot find holds the event loop for long at most once', async () => {
    const seen = await measure(() =>
      harness.text('browser_snapshot', { find: 'row 9999[0-9] of', regex: true }, 'huge'),
    );
    expect(seen.result).toContain('- listitem: Row 99999 of the huge list');
    expect(seen.result).not.toContain('Row 99989 of');
    expect(seen.pings).toBeGreaterThan(1);
    expect(
      seen.stalls.length,
      `pauses over ${STALL_MS} ms: ${seen.stalls.join(', ')}`,
    ).toBeLessThanOrEqual(1);
  }, 180_000);
});
