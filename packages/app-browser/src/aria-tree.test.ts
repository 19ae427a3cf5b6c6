import { describe, expect, it } from 'vitest';
import { collectPlaywrightRefs, normaliseAriaJson } from './aria-tree.js';

// Recorded from playwright-core 1.65.1 `page.ariaSnapshotJSON({ mode: 'ai' })` on Chromium.
const RECORDED = [
  {
    role: 'generic',
    active: true,
    ref: 'e1',
    children: [
      { role: 'textbox', name: 'q', ref: 'e2', text: 'typed' },
      { role: 'checkbox', name: 'c', checked: true, ref: 'e3' },
      { role: 'button', name: 'D', disabled: true, ref: 'e4' },
      { role: 'generic', ref: 'e6', cursor: 'pointer', text: 'clicky' },
      { role: 'generic', ref: 'e7', ariaHidden: true, text: 'hidden' },
      { role: 'img', ref: 'e8' },
      {
        role: 'paragraph',
        ref: 'e10',
        children: [
          'para   bold',
          { role: 'link', name: 'lnk', ref: 'e11', cursor: 'pointer', url: '#' },
        ],
      },
    ],
  },
];

describe('normaliseAriaJson', () => {
  it('drops hidden and decorative nodes, flattens unnamed wrappers and renames refs', () => {
    const nodes = normaliseAriaJson(RECORDED, (ref) => `x${ref}`);
    expect(nodes).toEqual([
      { role: 'textbox', name: 'q', ref: 'xe2', attributes: [], text: 'typed', children: [] },
      { role: 'checkbox', name: 'c', ref: 'xe3', attributes: ['checked'], children: [] },
      { role: 'button', name: 'D', ref: 'xe4', attributes: ['disabled'], children: [] },
      {
        role: 'generic',
        ref: 'xe6',
        attributes: ['cursor=pointer'],
        text: 'clicky',
        children: [],
      },
      {
        role: 'paragraph',
        ref: 'xe10',
        attributes: [],
        children: [
          { role: 'text', text: 'para bold', attributes: [], children: [] },
          {
            role: 'link',
            name: 'lnk',
            ref: 'xe11',
            attributes: ['url=#', 'cursor=pointer'],
            children: [],
          },
        ],
      },
    ]);
  });

  it('collects refs with whether they are interactive, skipping hidden subtrees', () => {
    const refs = collectPlaywrightRefs(RECORDED);
    expect(refs.map((entry) => `${entry.ref}:${entry.interactive}`)).toEqual([
      'e1:false',
      'e2:true',
      'e3:true',
      'e4:true',
      'e6:true',
      'e8:false',
      'e10:false',
      'e11:true',
    ]);
  });
});

describe('normaliseAriaJson: hidden text', () => {
  it('flags hidden text in names and text runs, never in attribute values', () => {
    const mark = (text: string) => (text === 'obey me' ? `[hidden: ${text}]` : text);
    const nodes = normaliseAriaJson(
      [
        { role: 'paragraph', children: ['obey me'] },
        { role: 'button', name: 'obey me', ref: 'e1' },
        { role: 'link', name: 'x', url: 'obey me', ref: 'e2' },
      ],
      (ref) => ref,
      { markHidden: mark },
    );
    expect(nodes[0]?.children[0]?.text).toBe('[hidden: obey me]');
    expect(nodes[1]?.name).toBe('[hidden: obey me]');
    expect(nodes[2]?.attributes).toContain('url=obey me');
  });
});
