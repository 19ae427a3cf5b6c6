import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
  UiHierarchyParseError,
  type UiNode,
  UiRefTable,
} from './ui-hierarchy.js';
import { renderUiTree } from './ui-tree-text.js';

const xml = readFileSync(
  join(import.meta.dirname, '../test/fixtures/uiautomator-settings.xml'),
  'utf8',
);

describe('parseUiHierarchy and renderUiTree', () => {
  it('renders the settings screen compactly with every actionable node and the keyboard folded', () => {
    const roots = parseUiHierarchy(`UI hierchary dumped to: /dev/tty\n${xml}`);
    const tree = renderUiTree(roots);
    // Shown nodes are numbered first, in reading order; hidden wrappers come after.
    expect(tree.text).toBe(
      [
        '[e1] Toolbar #search_action_bar clickable',
        '  [e2] "Search settings"',
        '[e3] RecyclerView #recycler_view scrollable',
        '  [e4] LinearLayout clickable',
        '    [e5] "Network & internet"',
        '    [e6] "Mobile, Wi‑Fi, hotspot"',
        '  [e7] LinearLayout clickable',
        '    [e8] "Connected devices"',
        '    [e9] "Bluetooth, pairing"',
        '  [e10] LinearLayout clickable',
        '    [e11] "Dark theme"',
        '    [e12] Switch #switch_widget checked',
        '[e13] keyboard shown (com.google.android.inputmethod.latin, 2 keys folded; use input_text to type)',
      ].join('\n'),
    );
    const refs = flattenNodes(roots).map((node) => node.ref);
    expect(new Set(refs).size).toBe(refs.length);
    const appNodes = flattenNodes(roots.filter((root) => !isKeyboardWindow(root)));
    expect(tree.actionableNodes).toBe(appNodes.filter(isActionable).length);
    expect(tree.text.length).toBeLessThan(xml.length * 0.15);
  });

  it('keeps refs when the layout moves (scroll or keyboard) and changes them on another screen', () => {
    const table = new UiRefTable();
    const before = flattenNodes(parseUiHierarchy(xml, table));
    const moved = flattenNodes(
      parseUiHierarchy(xml.replaceAll('[0,787][1080,997]', '[0,700][1080,910]'), table),
    );
    expect(moved.map((node) => node.ref)).toEqual(before.map((node) => node.ref));
    const renamed = flattenNodes(parseUiHierarchy(xml.replace('Dark theme', 'Light theme'), table));
    const darkRow = before.find((node) => node.text === 'Dark theme');
    const lightRow = renamed.find((node) => node.text === 'Light theme');
    expect(renamed.some((node) => node.ref === darkRow?.ref)).toBe(false);
    // A new node gets a number never handed out before; its untouched neighbours keep theirs.
    expect(lightRow?.ref).toBe(`e${before.length + 1}`);
    const unchanged = (nodes: UiNode[]) =>
      nodes.filter((node) => !/theme/.test(node.text)).map((node) => node.ref);
    expect(unchanged(renamed).slice(0, 10)).toEqual(unchanged(before).slice(0, 10));
  });

  it('never hands out a ref twice, even after forgetting the oldest paths', () => {
    const table = new UiRefTable(3);
    expect(['a', 'b', 'c'].map((path) => table.refFor(path))).toEqual(['e1', 'e2', 'e3']);
    expect(table.refFor('a')).toBe('e1');
    // "b" is now the least recently seen; a fourth path pushes it out.
    expect(table.refFor('d')).toBe('e4');
    expect(table.refFor('b')).toBe('e5');
    expect(table.refFor('a')).toBe('e1');
  });

  it('shows bounds on request and unescapes entities', () => {
    const tree = renderUiTree(parseUiHierarchy(xml), { bounds: true });
    expect(tree.text).toMatch(/\[e\d+\] "Network & internet" @\[210,409\]\[604,468\]/);
    expect(tree.text).toMatch(/LinearLayout clickable @\[0,367\]\[1080,577\]/);
  });

  it('refuses text that is not a hierarchy', () => {
    expect(() =>
      parseUiHierarchy('ERROR: null root node returned by UiTestAutomationBridge.'),
    ).toThrow(UiHierarchyParseError);
  });
});
