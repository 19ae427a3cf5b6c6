import { describe, expect, it } from 'vitest';
import type { AriaNode } from './aria-tree.js';
import { diffSnapshots, isEmptyDelta, prepareDiff } from './snapshot-delta.js';

function node(role: string, extra: Partial<AriaNode> = {}): AriaNode {
  return { role, attributes: [], children: [], ...extra };
}

describe('diffSnapshots', () => {
  const before = [
    node('button', { name: 'Add', ref: 'e1' }),
    node('list', {
      ref: 'e2',
      children: [node('listitem', { ref: 'e3', text: 'one' })],
    }),
    node('paragraph', { ref: 'e4', text: 'status: idle' }),
  ];

  it('reports no change for the same tree', () => {
    expect(isEmptyDelta(diffSnapshots(before, before))).toBe(true);
  });

  it('reports added, changed and removed nodes by ref', () => {
    const after = [
      node('button', { name: 'Added', ref: 'e1' }),
      node('list', {
        ref: 'e2',
        children: [node('listitem', { ref: 'e5', text: 'two' })],
      }),
      node('paragraph', { ref: 'e4', text: 'status: busy' }),
    ];
    expect(diffSnapshots(before, after)).toEqual({
      added: ['listitem [ref=e5]: two'],
      changed: ['button "Added" [ref=e1]', 'paragraph [ref=e4]: status: busy'],
      removed: ['listitem [ref=e3]: one'],
    });
  });

  it('gives the same delta when the base was read ahead', () => {
    const after = [node('button', { name: 'Add', ref: 'e1' }), node('button', { ref: 'e9' })];
    const expected = diffSnapshots(before, after);
    const base = before.map((entry) => ({ ...entry }));
    prepareDiff(base);
    expect(diffSnapshots(base, after)).toEqual(expected);
    expect(expected).toEqual({
      added: ['button [ref=e9]'],
      changed: [],
      removed: ['listitem [ref=e3]: one', 'list [ref=e2]', 'paragraph [ref=e4]: status: idle'],
    });
  });

  it('counts a text child without a ref as part of its parent', () => {
    const withText = [node('paragraph', { ref: 'e1', children: [node('text', { text: 'a' })] })];
    const changedText = [node('paragraph', { ref: 'e1', children: [node('text', { text: 'b' })] })];
    expect(diffSnapshots(withText, changedText).changed).toEqual(['paragraph [ref=e1]']);
  });
});

describe('link targets in deltas', () => {
  it('reports a link whose target changed, without showing the target', () => {
    const link = (url: string): AriaNode[] => [
      {
        role: 'link',
        name: 'Next',
        ref: 'e1',
        attributes: ['cursor=pointer', `url=${url}`],
        children: [],
      },
    ];
    expect(diffSnapshots(link('/a'), link('/b')).changed).toEqual(['link "Next" [ref=e1]']);
    expect(diffSnapshots(link('/a'), link('/a')).changed).toEqual([]);
  });
});
