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
    expect(tree.text.replaceAll(/\be\d{6}\b/g, 'REF')).toBe(
      [
        '[REF] Toolbar #search_action_bar clickable',
        '  [REF] "Search settings"',
        '[REF] RecyclerView #recycler_view scrollable',
        '  [REF] LinearLayout clickable',
        '    [REF] "Network & internet"',
        '    [REF] "Mobile, Wi‑Fi, hotspot"',
        '  [REF] LinearLayout clickable',
        '    [REF] "Connected devices"',
        '    [REF] "Bluetooth, pairing"',
        '  [REF] LinearLayout clickable',
        '    [REF] "Dark theme"',
        '    [REF] Switch #switch_widget checked',
        '[REF] keyboard shown (com.google.android.inputmethod.latin, 2 keys folded; use input_text to type)',
      ].join('\n'),
    );
    const refs = flattenNodes(roots).map((node) => node.ref);
    expect(new Set(refs).size).toBe(refs.length);
    const appNodes = flattenNodes(roots.filter((root) => !isKeyboardWindow(root)));
    expect(tree.actionableNodes).toBe(appNodes.filter(isActionable).length);
    expect(tree.text.length).toBeLessThan(xml.length * 0.15);
  });

  it('keeps refs when the layout moves (scroll or keyboard) and changes them on another screen', () => {
    const before = flattenNodes(parseUiHierarchy(xml));
    const moved = flattenNodes(
      parseUiHierarchy(xml.replaceAll('[0,787][1080,997]', '[0,700][1080,910]')),
    );
    expect(moved.map((node) => node.ref)).toEqual(before.map((node) => node.ref));
    const renamed = flattenNodes(parseUiHierarchy(xml.replace('Dark theme', 'Light theme')));
    const darkRow = before.find((node) => node.text === 'Dark theme');
    expect(renamed.some((node) => node.ref === darkRow?.ref)).toBe(false);
    // Its neighbours, whose identity paths did not change, keep their refs.
    const unchanged = (nodes: UiNode[]) =>
      nodes.filter((node) => !/theme/.test(node.text)).map((node) => node.ref);
    expect(unchanged(renamed)).toEqual(unchanged(before));
  });

  it('gives each node of a screen its own six-digit ref, even when hashes collide', () => {
    // 3,000 same-class siblings, each with its own label: collisions among 3,000 six-digit
    // hashes are all but certain (birthday bound), and each must be resolved.
    const rows = Array.from(
      { length: 3_000 },
      (_, index) =>
        `<node index="${index}" text="row ${index}" resource-id="" class="android.widget.TextView" package="p" content-desc="" clickable="true" bounds="[0,0][10,10]" />`,
    ).join('');
    const nodes = flattenNodes(
      parseUiHierarchy(
        `<hierarchy rotation="0"><node index="0" text="" class="android.widget.FrameLayout" package="p" bounds="[0,0][10,10]">${rows}</node></hierarchy>`,
      ),
    );
    const refs = nodes.map((node) => node.ref);
    expect(refs.every((ref) => /^e\d{6}$/.test(ref))).toBe(true);
    expect(new Set(refs).size).toBe(refs.length);
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
