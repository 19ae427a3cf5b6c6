import { describe, expect, it } from 'vitest';
import type { AriaNode } from './aria-tree.js';
import { listSnapshotLines, type SnapshotList } from './snapshot-render.js';
import { resumeSnapshotPage } from './snapshot-resume.js';

function node(role: string, extra: Partial<AriaNode> = {}): AriaNode {
  return { role, attributes: [], children: [], ...extra };
}

/** A status line and a list of items, each with a ref. */
function feed(items: string[], status = 'Status: 0 new'): SnapshotList {
  const tree = [
    node('paragraph', { ref: 'e1', text: status }),
    node('list', {
      ref: 'e2',
      children: items.map((item) => node('listitem', { ref: `e-${item}`, text: item })),
    }),
  ];
  return listSnapshotLines(tree, { maxTokens: 6_000, expand: true }) as SnapshotList;
}

const items = Array.from({ length: 20 }, (_, index) => `item${index + 1}`);

describe('resumeSnapshotPage', () => {
  it('continues the kept list when the page is the same', () => {
    const kept = feed(items);
    const current = feed(items);
    expect(current.token).toBe(kept.token);
    expect(resumeSnapshotPage({ current, cursor: 8, page: kept.token, kept })).toEqual({
      kind: 'same-page',
      cursor: 8,
      list: kept,
    });
  });

  it('continues the current page when only nodes past the cursor changed', () => {
    const kept = feed(items);
    const current = feed([...items, 'item21']);
    const resume = resumeSnapshotPage({ current, cursor: 8, kept });
    expect(resume).toMatchObject({ kind: 'changed-after-cursor', cursor: 8, list: current });
    expect(resume.note).toBe(
      `[the page changed since that page (page ${kept.token} → ${current.token}), but not in nodes 1-8 already shown: this page continues the current page.]`,
    );
  });

  it('lists nodes already shown that changed in place', () => {
    const kept = feed(items);
    const current = feed(items, 'Status: 4 new');
    expect(resumeSnapshotPage({ current, cursor: 8, kept }).note?.split('\n')).toEqual([
      `[the page changed since that page (page ${kept.token} → ${current.token}): 1 of nodes 1-8 already shown now read as below, the others are unchanged; this page continues the current page.]`,
      'node 1: - paragraph: Status: 4 new',
    ]);
  });

  it('starts from the top when nodes already shown moved, or too many changed in place', () => {
    const kept = feed(items);
    const moved = resumeSnapshotPage({ current: feed(['item0', ...items]), cursor: 8, kept });
    expect(moved).toMatchObject({ kind: 'from-top', cursor: 0 });
    const many = resumeSnapshotPage({
      current: feed(items, 'Status: 9 new'),
      cursor: 8,
      kept,
      maxChangedLines: 0,
    });
    expect(many.kind).toBe('from-top');
  });

  it('compares the token alone when the kept list is gone, and says so', () => {
    const before = feed(items);
    const same = resumeSnapshotPage({ current: feed(items), cursor: 8, page: before.token });
    expect(same).toMatchObject({ kind: 'same-page', cursor: 8 });
    expect(same.note).toMatch(/^\[page [0-9a-f]{8}: the tree of that page is no longer kept/);
    const other = resumeSnapshotPage({ current: feed(items, 'x'), cursor: 8, page: before.token });
    expect(other).toMatchObject({ kind: 'from-top', cursor: 0 });
    expect(resumeSnapshotPage({ current: before, cursor: 8 })).toMatchObject({
      kind: 'unchecked',
      cursor: 8,
    });
  });
});
