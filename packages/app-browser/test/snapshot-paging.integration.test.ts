import { principalKey } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { WEB_PAGE_MARKERS } from '../src/page-text.js';
import { renderSnapshot } from '../src/snapshot-render.js';
import { countTokens } from '../src/token-count.js';
import { unmarked, useHarness } from './harness.js';

// One real Chromium for the whole file, pages from a local server on 127.0.0.1.
const fixture = useHarness({ sessionPrefix: 'p' });

interface Page {
  readonly content: string;
  readonly data: {
    readonly nextCursor?: number;
    readonly page: string;
    readonly resumed?: string;
  };
}

async function snapshot(args: Record<string, unknown>, id = fixture.sessionId): Promise<Page> {
  const result = await fixture.harness.call('browser_snapshot', args, id);
  if (!result.ok) throw new Error(`browser_snapshot failed: ${JSON.stringify(result)}`);
  return { content: unmarked(result.content), data: result.data as Page['data'] };
}

async function open(path: string, id = fixture.sessionId): Promise<void> {
  const result = await fixture.harness.call(
    'browser_navigate',
    { url: `${fixture.server.origin}${path}` },
    id,
  );
  if (!result.ok) throw new Error(`browser_navigate failed: ${JSON.stringify(result)}`);
}

/** Changes the page the way its own scripts would (content loaded, a live region updated). */
async function changePage(script: string, id = fixture.sessionId): Promise<void> {
  await fixture.harness.manager.withSession(
    { principal: principalKey(undefined), session: id },
    async ({ session: browser }) => {
      const tab = await browser.activeTab();
      await tab.page.evaluate(script);
    },
  );
}

/** The cursor and page token the cut marker of a page names. */
function markerOf(page: Page): { cursor: number; page: string } {
  const match = /Continue with browser_snapshot cursor: (\d+), page: ([0-9a-f]{8})\]$/m.exec(
    page.content,
  );
  if (!match) throw new Error(`no cut marker in:\n${page.content}`);
  return { cursor: Number(match[1]), page: match[2] as string };
}

/** The lines of the page itself, in document order, without indentation. */
function nodeLines(page: Page): string[] {
  const lines = page.content.split('\n').slice(1);
  const end = lines.findIndex(
    (line) => line.startsWith('[interactive elements') || line.startsWith('[cut:'),
  );
  return (end < 0 ? lines : lines.slice(0, end))
    .filter((line) => !line.startsWith('The whole page'))
    .map((line) => line.trim());
}

/** Every node of the active page with every row and no budget, as the tools render it. */
async function wholePage(id = fixture.sessionId): Promise<string[]> {
  let lines: string[] = [];
  await fixture.harness.manager.withSession(
    { principal: principalKey(undefined), session: id },
    async ({ session: browser }) => {
      const tab = await browser.activeTab();
      const tree = await tab.snapshot();
      lines = renderSnapshot(tree.nodes, { maxTokens: 10_000_000, expand: true })
        .text.split('\n')
        .map((line) => line.trim());
    },
  );
  return lines;
}

describe('browser_snapshot paging', () => {
  it('pages a long page end to end by cursor and page, with nothing lost or repeated', async () => {
    await open('/feed?posts=200');
    const pages: Page[] = [await snapshot({ expand: true, maxTokens: 800 })];
    const token = pages[0]?.data.page;
    expect(token).toMatch(/^[0-9a-f]{8}$/);
    while (pages.at(-1)?.data.nextCursor !== undefined) {
      const marker = markerOf(pages.at(-1) as Page);
      expect(marker).toEqual({ cursor: pages.at(-1)?.data.nextCursor, page: token });
      pages.push(await snapshot({ expand: true, maxTokens: 800, ...marker }));
      expect(pages.length).toBeLessThan(60);
    }
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages.slice(1)) {
      expect(page.data).toMatchObject({ page: token, resumed: 'same-page' });
      expect(page.content.split('\n')[1]).not.toMatch(/^\[/);
    }
    const read = pages.flatMap(nodeLines);
    expect(read).toEqual(await wholePage());
    expect(read.filter((line) => line.includes('[Open](e'))).toHaveLength(200);
  }, 120_000);

  it('says a cursor came from a page read with other options, and starts from the top', async () => {
    await open('/feed?posts=120');
    const marker = markerOf(await snapshot({ expand: true, maxTokens: 800 }));
    const other = await snapshot({ expand: true, find: 'Post 1', maxTokens: 800, ...marker });
    expect(other.data.resumed).toBe('from-top');
    expect(other.content.split('\n')[1]).toBe(
      `[page ${marker.page} was read with other options (ref, find, regex or expand) than this call, so its cursor does not apply: this is the page for these options from the top. To continue that page, repeat its options with the cursor.]`,
    );
    // The same options continue it.
    const same = await snapshot({ expand: true, maxTokens: 800, ...marker });
    expect(same.data).toMatchObject({ page: marker.page, resumed: 'same-page' });
  }, 60_000);

  it('starts again from the top, with a new page token, when nodes already shown changed', async () => {
    await open('/feed?posts=120');
    const first = await snapshot({ expand: true, maxTokens: 800 });
    const marker = markerOf(first);
    await changePage(
      `document.getElementById('posts').insertAdjacentHTML('afterbegin', '<li>Post 0: just in <a href="/post/0">Open</a></li>')`,
    );
    const next = await snapshot({ expand: true, maxTokens: 800, ...marker });
    const lines = next.content.split('\n');
    expect(next.data.resumed).toBe('from-top');
    expect(next.data.page).not.toBe(marker.page);
    expect(lines[1]).toBe(
      `[the page changed since that page (page ${marker.page} → ${next.data.page}) in nodes already shown, so the pages read so far are out of date: this is the current page from the top.]`,
    );
    expect(lines[2]).toBe('- # Feed');
    expect(next.content).toContain('Post 0: just in');
    expect(markerOf(next).page).toBe(next.data.page);
    // The first page of the current page leaves the whole page in a file, as any first page does.
    expect(next.content).toMatch(/The whole page \(every node, no budget\) is in the file /);
  }, 60_000);

  it('says only that a later page continues under the same title and address, and shows them again when the title changed', async () => {
    await open('/feed?posts=200');
    const marker = markerOf(await snapshot({ expand: true, maxTokens: 800 }));
    const args = { expand: true, maxTokens: 800 };
    const second = await fixture.harness.call(
      'browser_snapshot',
      { ...args, ...marker },
      fixture.sessionId,
    );
    if (!second.ok) throw new Error(JSON.stringify(second));
    expect(second.data).toMatchObject({ resumed: 'same-page', continued: true });
    expect(second.content.split('\n').slice(0, 2)).toEqual([
      `Tab t1, page ${marker.page} from node ${marker.cursor + 1} (same title and address):`,
      WEB_PAGE_MARKERS.open,
    ]);
    expect(second.content).not.toContain(WEB_PAGE_MARKERS.notice);
    expect(countTokens(second.content)).toBeLessThanOrEqual(800);
    // The page's own title changes (its lines do not): the next page shows title and address.
    await changePage(`document.title = 'Feed [ref=e1] renamed'`);
    const next = (second.data as { nextCursor: number; page: string }).nextCursor;
    const third = await fixture.harness.call(
      'browser_snapshot',
      { ...args, cursor: next, page: marker.page },
      fixture.sessionId,
    );
    if (!third.ok) throw new Error(JSON.stringify(third));
    expect(third.data).toMatchObject({ resumed: 'same-page' });
    expect((third.data as { continued?: boolean }).continued).toBeUndefined();
    expect(third.content.split('\n').slice(0, 4)).toEqual([
      'Tab t1:',
      WEB_PAGE_MARKERS.notice,
      WEB_PAGE_MARKERS.open,
      `"Feed (ref=e1] renamed" — ${fixture.server.origin}/feed?posts=200`,
    ]);
  }, 60_000);

  it('continues the current page, and says so, when only nodes past the cursor changed', async () => {
    await open('/feed?posts=120');
    const first = await snapshot({ expand: true, maxTokens: 800 });
    const marker = markerOf(first);
    await changePage(
      `document.getElementById('posts').insertAdjacentHTML('beforeend', '<li>Post 121: late <a href="/post/121">Open</a></li>')`,
    );
    const next = await snapshot({ expand: true, maxTokens: 800, ...marker });
    const whole = await wholePage();
    expect(next.data.resumed).toBe('changed-after-cursor');
    expect(next.content.split('\n')[1]).toBe(
      `[the page changed since that page (page ${marker.page} → ${next.data.page}), but not in nodes 1-${marker.cursor} already shown: this page continues the current page.]`,
    );
    expect(nodeLines(next).slice(1, 4)).toEqual(whole.slice(marker.cursor, marker.cursor + 3));
  }, 60_000);

  it('lists nodes already shown that changed in place, then continues', async () => {
    await open('/feed?posts=120');
    const first = await snapshot({ expand: true, maxTokens: 800 });
    const marker = markerOf(first);
    const status = first.content.split('\n').find((line) => line.includes('Status: 0 new'));
    await changePage(`document.getElementById('status').textContent = 'Status: 3 new'`);
    const next = await snapshot({ expand: true, maxTokens: 800, ...marker });
    expect(next.data.resumed).toBe('changed-lines-listed');
    expect(next.content.split('\n').slice(1, 3)).toEqual([
      `[the page changed since that page (page ${marker.page} → ${next.data.page}): 1 of nodes 1-${marker.cursor} already shown now read as below, the others are unchanged; this page continues the current page.]`,
      `node 2: ${status?.trim().replace('Status: 0 new', 'Status: 3 new')}`,
    ]);
    expect(nodeLines(next)[2]).toBe((await wholePage())[marker.cursor]);
  }, 60_000);

  it('checks an old-style cursor against the latest cut page of the tab, from browser_navigate too', async () => {
    const navigated = await fixture.harness.call(
      'browser_navigate',
      { url: `${fixture.server.origin}/feed?posts=120`, maxTokens: 400 },
      fixture.sessionId,
    );
    expect(navigated.ok).toBe(true);
    if (!navigated.ok) return;
    const marker = markerOf(navigated as unknown as Page);
    expect(navigated.data).toMatchObject({ nextCursor: marker.cursor, page: marker.page });
    const same = await snapshot({ maxTokens: 400, cursor: marker.cursor });
    expect(same.data).toMatchObject({ resumed: 'same-page', page: marker.page });
    expect(same.content.split('\n')[1]).not.toMatch(/^\[/);
    await changePage(`document.getElementById('status').textContent = 'Status: 2 new'`);
    const changed = await snapshot({ maxTokens: 400, cursor: markerOf(same).cursor });
    expect(changed.data.resumed).toBe('changed-lines-listed');
    await changePage(`document.querySelector('h1').remove()`);
    const moved = await snapshot({ maxTokens: 400, cursor: markerOf(changed).cursor });
    expect(moved.data.resumed).toBe('from-top');
    expect(moved.content.split('\n')[1]).toMatch(
      /^\[the page changed since that page \(page [0-9a-f]{8} → [0-9a-f]{8}\) in nodes already shown, so the pages read so far are out of date: this is the current page from the top\.\]$/,
    );
  }, 60_000);

  it('follows a cursor whose cut page is no longer kept by reading the page again, and says what it did', async () => {
    await open('/feed?posts=120');
    const marker = markerOf(await snapshot({ expand: true, maxTokens: 800 }));
    // Another session keeps no cut page, as after a restart; its tab numbers refs the same way.
    const fresh = `${fixture.sessionId}-fresh`;
    await fixture.harness.call(
      'browser_navigate',
      { url: `${fixture.server.origin}/feed?posts=120`, maxTokens: 50_000 },
      fresh,
    );
    const unchanged = await snapshot({ expand: true, maxTokens: 800, ...marker }, fresh);
    expect(unchanged.data).toMatchObject({ resumed: 'same-page', page: marker.page });
    expect(unchanged.content.split('\n')[1]).toBe(
      `[page ${marker.page}: the tree of that page is no longer kept (many snapshots since, or the tools restarted); the page was read again and is unchanged, so this page continues it.]`,
    );
    expect(nodeLines(unchanged)[1]).toBe((await wholePage(fresh))[marker.cursor]);

    const other = `${fixture.sessionId}-other`;
    await fixture.harness.call(
      'browser_navigate',
      { url: `${fixture.server.origin}/feed?posts=121` },
      other,
    );
    const differs = await snapshot({ expand: true, maxTokens: 800, ...marker }, other);
    expect(differs.data.resumed).toBe('from-top');
    expect(differs.content.split('\n')[1]).toBe(
      `[page ${marker.page} is no longer kept (many snapshots since, or the tools restarted) and the page differs from it now (page ${differs.data.page}), so the pages read so far may be out of date: this is the current page from the top.]`,
    );

    // A view (no expand) of which no cut page is kept.
    const unchecked = await snapshot({ maxTokens: 800, cursor: 5 }, other);
    expect(unchecked.data.resumed).toBe('unchecked');
    expect(unchecked.content.split('\n')[1]).toBe(
      '[no page was given with the cursor and no cut page of this tab is kept, so this page is cut from the page as read now, unchecked; the page of the cut marker lets browser_snapshot check it.]',
    );
    expect(nodeLines(unchecked)[1]).toBe((await wholePage(other))[5]);
  }, 60_000);

  it('continues the cut page an action returned with snapshot: "full"', async () => {
    await open('/feed?posts=600');
    const navigated = await snapshot({ maxTokens: 50_000 });
    const like = /- button "Like" \[ref=(e\d+)\]/.exec(navigated.content)?.[1];
    const clicked = await fixture.harness.call(
      'browser_click',
      { ref: like, snapshot: 'full' },
      fixture.sessionId,
    );
    expect(clicked.ok).toBe(true);
    if (!clicked.ok) return;
    expect(clicked.content).toContain('- button "Liked" [ref=');
    const marker = markerOf(clicked as unknown as Page);
    const next = await snapshot(marker);
    expect(next.data).toMatchObject({ resumed: 'same-page', page: marker.page });
    expect(next.content.split('\n')[1]).not.toMatch(/^\[/);
  }, 60_000);

  it('refuses a page token without a cursor, and one that is not a token', async () => {
    await open('/feed?posts=3');
    expect(
      await fixture.harness.text('browser_snapshot', { page: 'abcd1234' }, fixture.sessionId),
    ).toBe(
      'Error: [INVALID_ARGUMENT] page: goes with cursor; both come from the same cut marker\nNext: Pass cursor and page as the cut marker names them.',
    );
    expect(
      await fixture.harness.text(
        'browser_snapshot',
        { cursor: 3, page: 'nope' },
        fixture.sessionId,
      ),
    ).toMatch(/^Error: \[INVALID_ARGUMENT\] page: /);
  });
  it('says a page too slow to read timed out, and where the tab stays', async () => {
    await open('/feed?posts=200');
    let failure: unknown;
    await fixture.harness.manager.withSession(
      { principal: principalKey(undefined), session: fixture.sessionId },
      async ({ session: browser }) => {
        const tab = await browser.activeTab();
        // A 1 ms bound stands in for a page that takes longer than the read bound.
        failure = await tab.snapshot([], 1).catch((error: unknown) => error);
      },
    );
    expect(failure).toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(/^reading tab t1's accessibility tree took longer than 1 ms /),
      options: {
        hint: expect.stringContaining(`The tab stays on ${fixture.server.origin}/feed?posts=200`),
      },
    });
  });
});
