import { basename } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { refOf, useHarness } from '../../../packages/app-browser/test/harness.js';

/*
 * Two MCP sessions on one browser, on a real Chromium against a local server. Session A opens
 * tabs, reads a page and downloads a file; session B (which approved nothing) tries to list,
 * read, switch to, act on and close them by their ids and refs, and to see A's downloads,
 * requests and files. Ids such as `t2`, `e5` or download `#1` are names inside a session, never
 * keys into another session's state.
 */

const fixture = useHarness();
const A = 'session-a';
const B = 'session-b';

const text = (as: string, id: string, args: Record<string, unknown> = {}) =>
  fixture.harness.text(id, args, as);

describe("another session cannot reach a session's tabs or downloads", () => {
  let page = '';

  beforeAll(async () => {
    page = await text(A, 'browser_navigate', { url: `${fixture.server.origin}/form.html` });
    await text(A, 'browser_click', { ref: refOf(page, 'Download report') });
    await text(A, 'browser_navigate', { url: `${fixture.server.origin}/other.html`, newTab: true });
    // The download ends within a moment; the list waits for it (bounded).
    for (let tries = 0; tries < 20; tries += 1) {
      if ((await text(A, 'browser_download_list')).includes('completed')) break;
    }
  }, 60_000);

  it('lists only its own tabs, requests, downloads and summary', async () => {
    const tabs = await text(B, 'browser_show', { action: 'list' });
    expect(tabs).not.toContain(fixture.server.origin);
    expect(tabs).toMatch(/^Open tabs:\n\* t1: \(no title\) — about:blank$/);
    expect(await text(B, 'browser_download_list')).toBe('No downloads in this session.');
    expect(await text(B, 'browser_network_log')).not.toContain(fixture.server.origin);
    expect(await text(B, 'browser_context_summary')).not.toContain(fixture.server.origin);
  });

  it("cannot switch to, read, act on or close the other session's tab by its id", async () => {
    const missing = 'Error: [NOT_FOUND] tab: no open tab "t2"';
    expect(await text(B, 'browser_show', { action: 'select', tab: 't2' })).toContain(missing);
    expect(await text(B, 'browser_show', { action: 'close', tab: 't2' })).toContain(missing);
    expect(await text(B, 'browser_snapshot', { tab: 't2' })).toContain(missing);
    expect(await text(B, 'browser_screenshot', { tab: 't2' })).toContain(missing);
    // B's own `t1` is its own blank tab, not A's form page.
    expect(await text(B, 'browser_snapshot', { tab: 't1' })).not.toContain('Order form');
  });

  it("cannot use the other session's refs", async () => {
    const name = refOf(page, 'textbox "Name"');
    const result = await text(B, 'browser_input', { ref: name, text: 'from B' });
    expect(result).toMatch(/^Error: \[NOT_FOUND\] ref: no element has ref e\d+ in tab t1/);
    expect(await text(A, 'browser_snapshot', { tab: 't1' })).not.toContain('from B');
  });

  it("leaves the other session's tabs open, and ending a session ends only its own", async () => {
    await fixture.harness.manager.closeSession(B);
    const tabs = await text(A, 'browser_show', { action: 'list' });
    expect(tabs).toContain(`t1: "Order form" — ${fixture.server.origin}/form.html`);
    expect(tabs).toContain(`t2: "Other page" — ${fixture.server.origin}/other.html`);
    expect(await text(A, 'browser_download_list')).toContain('#1 report.txt: completed');
  });

  it('gives another principal presenting the same client session id a browser state of its own (issue 32)', async () => {
    const { manager } = fixture.harness;
    const alice = { principal: 'token:alice', session: 'shared-id' };
    const bob = { principal: 'token:bob', session: 'shared-id' };
    const aliceState = await manager.withSession(alice, async ({ session }) => session);
    const bobState = await manager.withSession(bob, async ({ session }) => session);
    expect(bobState).not.toBe(aliceState);
    expect(await manager.withSession(alice, async ({ session }) => session)).toBe(aliceState);
    await manager.closeSession('shared-id');
    expect(await manager.withSession(alice, async ({ session }) => session)).not.toBe(aliceState);
    await manager.closeSession('shared-id');
  });

  it('names its screenshot files so that no other session can guess or overwrite them', async () => {
    const [first, second] = await Promise.all([
      fixture.harness.call('browser_screenshot', { tab: 't1' }, A),
      fixture.harness.call('browser_screenshot', {}, B),
    ]);
    const paths = [first, second].map((result) => {
      if (!result.ok) throw new Error(result.error.message);
      return (result.data as { path: string }).path;
    });
    expect(paths[0]).not.toBe(paths[1]);
    for (const path of paths) expect(basename(path)).toMatch(/-t1-[0-9a-f]{16}\.png$/);
  });
});
