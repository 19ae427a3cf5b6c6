import { describe, expect, it } from 'vitest';
import {
  flattenNodes,
  readUiHierarchy,
  readUiHierarchyInSlices,
  UiHierarchyParseError,
} from './ui-hierarchy.js';

const node = (attributes: string, children = '') =>
  children === '' ? `<node ${attributes} />` : `<node ${attributes}>${children}</node>`;

describe('readUiHierarchy', () => {
  it('reads attributes, nesting and entities of a uiautomator dump', () => {
    const xml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${node(
      'text="" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]"',
      node(
        'text="A &amp; B &lt;c&gt; &#233;&#x1F600;" class="android.widget.Button" clickable="true" bounds="[1,2][3,4]"',
      ),
    )}</hierarchy>UI hierchary dumped to: /dev/tty`;
    const { roots, skippedNodes } = readUiHierarchy(xml);
    expect(skippedNodes).toBe(0);
    const button = roots[0]?.children[0];
    expect(button).toMatchObject({
      text: 'A & B <c> é😀',
      className: 'android.widget.Button',
      clickable: true,
      bounds: [1, 2, 3, 4],
    });
    expect(button?.ref).toMatch(/^e\d{3,5}$/);
  });

  it('refuses text without a hierarchy', () => {
    expect(() => readUiHierarchy('ERROR: could not get idle state.')).toThrow(
      UiHierarchyParseError,
    );
  });

  it('reads a dump cut short up to where it stops', () => {
    const xml = `<hierarchy>${node('text="one"')}${node('text="two"')}<node text="thr`;
    expect(readUiHierarchy(xml).roots.map((root) => root.text)).toEqual(['one', 'two']);
  });

  it('turns character references no code point has into U+FFFD', () => {
    const xml = `<hierarchy>${node('text="&#99999999;&#x110000;ok"')}</hierarchy>`;
    expect(readUiHierarchy(xml).roots[0]?.text).toBe('\uFFFD\uFFFDok');
  });

  it('removes invisible characters from texts and counts them', () => {
    const xml = `<hierarchy>${node('text="Pay\u202Eyap\u200B\u{E0041}"')}</hierarchy>`;
    const read = readUiHierarchy(xml);
    expect(read.roots[0]?.text).toBe('Payyap');
    expect(read.invisibleRemoved).toBe(3);
  });

  it('reads 300 KB of unclosed tags in linear time', () => {
    const started = performance.now();
    readUiHierarchy(`<hierarchy>${'<a '.repeat(100_000)}</hierarchy>`);
    readUiHierarchy(`<hierarchy>${'<a b="'.repeat(50_000)}</hierarchy>`);
    readUiHierarchy(`<hierarchy><a ${'x'.repeat(300_000)}</hierarchy>`);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('skips nodes past the nesting and node bounds', () => {
    const deep = `<hierarchy>${'<node text="x">'.repeat(500)}</hierarchy>`;
    const read = readUiHierarchy(deep, { maxDepth: 200 });
    expect(flattenNodes(read.roots)).toHaveLength(200);
    expect(read.skippedNodes).toBe(300);
    const wide = `<hierarchy>${node('text="x"').repeat(50)}</hierarchy>`;
    expect(readUiHierarchy(wide, { maxNodes: 10 }).skippedNodes).toBe(40);
  });
});

describe('readUiHierarchyInSlices', () => {
  it('reads what the one-pass reader reads, serving the event loop between slices', async () => {
    const row =
      '<node text="row" class="android.widget.TextView" clickable="true" bounds="[0,0][100,100]">';
    const xml = `<hierarchy rotation="0">${`${row}</node>`.repeat(20_000)}${row.repeat(300)}</hierarchy>`;
    let turns = 0;
    const timer = setInterval(() => {
      turns += 1;
    }, 0);
    const sliced = await readUiHierarchyInSlices(xml);
    clearInterval(timer);
    expect(sliced).toEqual(readUiHierarchy(xml));
    expect(sliced.skippedNodes).toBeGreaterThan(0);
    // A timer ran while it read: the reading did not hold the loop from start to end.
    expect(turns).toBeGreaterThan(0);
  });

  it('refuses what is not a hierarchy, as the one-pass reader does', async () => {
    await expect(readUiHierarchyInSlices('UI hierchary dumped to: nowhere')).rejects.toThrow(
      UiHierarchyParseError,
    );
  });
});
