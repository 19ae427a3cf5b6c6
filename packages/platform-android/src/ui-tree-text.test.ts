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
    expect(tree.text.replaceAll(/\be\d{3,5}\b/g, 'REF')).toBe(
      [
        '[REF] Toolbar "Search settings"',
        '[REF] #recycler_view scrollable',
        '  [REF] "Network & internet" "Mobile, Wi‑Fi, hotspot"',
        '  [REF] "Connected devices" "Bluetooth, pairing"',
        '  [REF] "Dark theme"',
        '    [REF] Switch #switch_widget checked',
        'keyboard shown (com.google.android.inputmethod.latin, 2 keys folded; use input_text to type)',
      ].join('\n'),
    );
    const refs = flattenNodes(roots)
      .map((node) => node.ref)
      .filter((ref) => ref !== '');
    expect(new Set(refs).size).toBe(refs.length);
    const keys = flattenNodes(roots).map((node) => node.key);
    expect(new Set(keys).size).toBe(keys.length);
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
    expect(moved.map((node) => node.key)).toEqual(before.map((node) => node.key));
    const renamed = flattenNodes(parseUiHierarchy(xml.replace('Dark theme', 'Light theme')));
    // The row is known by its first text: renamed, it is another node.
    const darkRow = before.find(
      (node) => node.clickable && node.children.some((c) => c.text === 'Dark theme'),
    );
    expect(darkRow?.ref).toMatch(/^e\d{3,5}$/);
    expect(renamed.some((node) => node.key === darkRow?.key)).toBe(false);
    // The other rows, whose identity paths did not change, keep their refs.
    const unchanged = (nodes: UiNode[]) =>
      nodes.filter((node) => /Network|Connected/.test(node.text)).map((node) => node.ref);
    expect(unchanged(renamed)).toEqual(unchanged(before));
  });

  it('gives each actionable node of a screen its own short ref, even when hashes collide', () => {
    // 3,000 same-class siblings, each with its own label: far more than the 1,000 three-digit
    // refs, so collisions are certain and each must be resolved.
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
    const refs = nodes.filter(isActionable).map((node) => node.ref);
    expect(refs).toHaveLength(3_000);
    expect(refs.every((ref) => /^e\d{3,5}$/.test(ref))).toBe(true);
    expect(new Set(refs).size).toBe(refs.length);
    // The frame around them can be acted on by nothing, so it has no ref.
    expect(nodes[0]?.ref).toBe('');
  });

  it('shows bounds on request and unescapes entities', () => {
    const tree = renderUiTree(parseUiHierarchy(xml), { bounds: true });
    expect(tree.text).toMatch(
      /\[e\d+\] "Network & internet" "Mobile, Wi‑Fi, hotspot" @\[0,367\]\[1080,577\]/,
    );
    expect(tree.text).toMatch(/"Dark theme" @\[0,787\]\[1080,997\]/);
  });

  it('refuses text that is not a hierarchy', () => {
    expect(() =>
      parseUiHierarchy('ERROR: null root node returned by UiTestAutomationBridge.'),
    ).toThrow(UiHierarchyParseError);
  });
});
