import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  flattenNodes,
  isActionable,
  isKeyboardWindow,
  parseUiHierarchy,
  UiHierarchyParseError,
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
    const refs = tree.text.split('\n').map((line) => line.trim().slice(0, 8));
    expect(tree.text.replaceAll(/e[0-9a-f]{5}/g, 'REF')).toBe(
      [
        '[REF] Toolbar id=search_action_bar (clickable)',
        '  [REF] TextView "Search settings" id=search_action_bar_title',
        '[REF] RecyclerView id=recycler_view (scrollable)',
        '  [REF] LinearLayout (clickable)',
        '    [REF] TextView "Network & internet" id=title',
        '    [REF] TextView "Mobile, Wi‑Fi, hotspot" id=summary',
        '  [REF] LinearLayout (clickable)',
        '    [REF] TextView "Connected devices" id=title',
        '    [REF] TextView "Bluetooth, pairing" id=summary',
        '  [REF] LinearLayout (clickable)',
        '    [REF] TextView "Dark theme" id=title',
        '    [REF] Switch id=switch_widget (checked)',
        '[REF] keyboard shown (com.google.android.inputmethod.latin, 2 keys folded; use input_text to type)',
      ].join('\n'),
    );
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
  });

  it('shows bounds on request and unescapes entities', () => {
    const tree = renderUiTree(parseUiHierarchy(xml), { bounds: true });
    expect(tree.text).toMatch(/TextView "Network & internet" id=title @\[210,409\]\[604,468\]/);
  });

  it('refuses text that is not a hierarchy', () => {
    expect(() =>
      parseUiHierarchy('ERROR: null root node returned by UiTestAutomationBridge.'),
    ).toThrow(UiHierarchyParseError);
  });
});
