import { describe, expect, it } from 'vitest';
import type { AriaNode } from './aria-tree.js';
import { SnapshotPages, snapshotViewOf, WHOLE_PAGE_VIEW } from './snapshot-pages.js';
import { renderSnapshot } from './snapshot-render.js';

function paragraphs(count: number, word: string): AriaNode[] {
  return Array.from({ length: count }, (_, index) => ({
    role: 'paragraph',
    ref: `e${index + 1}`,
    text: `${word} ${index + 1} ${'x'.repeat(40)}`,
    attributes: [],
    children: [],
  }));
}

const cut = (count: number, word: string) =>
  renderSnapshot(paragraphs(count, word), { maxTokens: 200, expand: true });

describe('SnapshotPages', () => {
  it('keeps only cut pages, finds them by token and the latest by view', () => {
    const pages = new SnapshotPages();
    const whole = renderSnapshot(paragraphs(2, 'a'), { maxTokens: 200 });
    pages.keepCut('t1', whole);
    expect(pages.size).toBe(0);
    const first = cut(50, 'a');
    const second = cut(50, 'b');
    pages.keepCut('t1', first);
    pages.keepCut('t1', second, snapshotViewOf({ expand: true }));
    expect(pages.find('t1', first.page)?.lines).toBe(first.list.lines);
    expect(pages.find('t2', first.page)).toBeUndefined();
    expect(pages.latest('t1', WHOLE_PAGE_VIEW)?.token).toBe(first.page);
    expect(pages.latest('t1', snapshotViewOf({ expand: true }))?.token).toBe(second.page);
  });

  it('drops the oldest past its bounds', () => {
    const pages = new SnapshotPages({ perTab: 2, tabs: 2, maxLines: 120 });
    const [a, b, c] = [cut(50, 'a'), cut(50, 'b'), cut(50, 'c')];
    pages.keepCut('t1', a);
    pages.keepCut('t1', b);
    pages.keepCut('t1', c);
    expect(pages.find('t1', a.page)).toBeUndefined();
    expect(pages.size).toBe(100);
    pages.keepCut('t2', cut(50, 'd'));
    expect(pages.find('t1', b.page)).toBeUndefined();
    expect(pages.find('t1', c.page)).toBeDefined();
    pages.keepCut('t3', cut(50, 'e'));
    expect(pages.find('t1', c.page)).toBeUndefined();
    pages.keepCut('t3', cut(200, 'f'));
    expect(pages.size).toBe(100);
  });
});
