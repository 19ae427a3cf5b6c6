import { describe, expect, it } from 'vitest';
import {
  collectPlaywrightRefs,
  collectPlaywrightRefsAsync,
  normaliseAriaJson,
  normaliseAriaJsonAsync,
} from './aria-tree.js';
import { compileFind } from './page-text.js';
import { diffSnapshots, diffSnapshotsAsync } from './snapshot-delta.js';
import { SnapshotPages } from './snapshot-pages.js';
import { pageSnapshot, pageSnapshotAsync } from './snapshot-paging.js';
import { renderSnapshot, renderSnapshotAsync } from './snapshot-render.js';

/** A raw tree of `rows` list items (a heading, a link and a button each) in a main landmark. */
function rawPage(rows: number): unknown[] {
  return [
    { role: 'heading', name: 'Shop', level: 1, ref: 'e1' },
    {
      role: 'main',
      ref: 'e2',
      children: [
        {
          role: 'list',
          ref: 'e3',
          children: Array.from({ length: rows }, (_, index) => ({
            role: 'listitem',
            ref: `e${10 + index * 3}`,
            children: [
              {
                role: 'link',
                name: `Item ${index}`,
                url: `/item/${index}`,
                ref: `e${11 + index * 3}`,
              },
              { role: 'button', name: `Add item ${index}`, ref: `e${12 + index * 3}` },
            ],
          })),
        },
      ],
    },
  ];
}

/** Counts the turns the event loop gets while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  const timer = setInterval(() => {
    turns += 1;
  }, 0);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    clearInterval(timer);
  }
}

describe('work on a large tree in slices', () => {
  const raw = rawPage(20_000);
  const rename = (ref: string) => ref;

  it('normalises and collects refs as in one go, giving the event loop turns', async () => {
    const { result, turns } = await turnsDuring(() => normaliseAriaJsonAsync(raw, rename));
    expect(result).toEqual(normaliseAriaJson(raw, rename));
    expect(turns).toBeGreaterThan(0);
    await expect(collectPlaywrightRefsAsync(raw)).resolves.toEqual(collectPlaywrightRefs(raw));
  });

  it('renders, pages and finds as in one go, giving the event loop turns', async () => {
    const nodes = normaliseAriaJson(raw, rename);
    for (const options of [
      { maxTokens: 2_000 },
      { maxTokens: 2_000, expand: true },
      { maxTokens: 2_000, find: compileFind('item 1999[0-9]', true) },
      { maxTokens: Number.POSITIVE_INFINITY, expand: true },
    ]) {
      const { result, turns } = await turnsDuring(() => renderSnapshotAsync(nodes, options));
      expect(result.text).toBe(renderSnapshot(nodes, options).text);
      expect(turns).toBeGreaterThan(0);
    }
    const paging = {
      nodes,
      tabId: 't1',
      view: 'whole',
      maxTokens: 1_000,
      continuedMaxTokens: 1_000,
      where: '"Shop" — https://shop.test/',
    };
    const sliced = await pageSnapshotAsync({ ...paging, pages: new SnapshotPages() });
    const whole = pageSnapshot({ ...paging, pages: new SnapshotPages() });
    expect(sliced?.rendered.text).toBe(whole?.rendered.text);
  });

  it('compares two trees as in one go, giving the event loop turns', async () => {
    const before = normaliseAriaJson(raw, rename);
    const after = normaliseAriaJson(rawPage(19_990), rename);
    const { result, turns } = await turnsDuring(() => diffSnapshotsAsync(before, after));
    expect(result).toEqual(diffSnapshots(before, after));
    expect(result.removed).toHaveLength(30);
    expect(turns).toBeGreaterThan(0);
  });

  it('stops once the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('call ended'));
    await expect(normaliseAriaJsonAsync(raw, rename, {}, controller.signal)).rejects.toThrow(
      'call ended',
    );
  });
});
