import { countTokens } from '@toolsys/platform';
import { describe, expect, it } from 'vitest';
import { parseUiHierarchy } from './ui-hierarchy.js';
import { pageUiTree } from './ui-tree-page.js';
import { renderUiTree, type UiTreeLine } from './ui-tree-text.js';

/** A contacts list of `rows` rows (a clickable row, its name and number, a star checkbox). */
function contactsXml(rows: number): string {
  const row = (index: number) => {
    const top = 300 + index * 200;
    return `<node class="android.widget.LinearLayout" package="com.example.contacts" clickable="true" focusable="true" bounds="[0,${top}][1080,${top + 200}]">
  <node class="android.widget.TextView" package="com.example.contacts" resource-id="com.example.contacts:id/name" text="Contact ${index + 1} Lastname" bounds="[40,${top + 20}][800,${top + 100}]" />
  <node class="android.widget.TextView" package="com.example.contacts" resource-id="com.example.contacts:id/number" text="+1 555 01${String(index).padStart(2, '0')}" bounds="[40,${top + 100}][800,${top + 180}]" />
  <node class="android.widget.CheckBox" package="com.example.contacts" resource-id="com.example.contacts:id/star" checkable="true" clickable="true" bounds="[900,${top + 60}][1000,${top + 140}]" />
</node>`;
  };
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node class="android.widget.FrameLayout" package="com.example.contacts" bounds="[0,0][1080,2400]">
<node class="android.widget.TextView" package="com.example.contacts" text="Contacts" bounds="[40,150][700,260]" />
<node class="androidx.recyclerview.widget.RecyclerView" package="com.example.contacts" resource-id="com.example.contacts:id/list" scrollable="true" focusable="true" bounds="[0,300][1080,2400]">
${Array.from({ length: rows }, (_, index) => row(index)).join('\n')}
</node>
</node>
</hierarchy>`;
}

/** The tree lines a page shows (before any ref list or marker). */
function treeLinesOf(text: string): string[] {
  const lines = text.split('\n');
  const end = lines.findIndex((line) =>
    /^\[(actionable nodes further down|cut:|lines )/.test(line),
  );
  return end < 0 ? lines : lines.slice(0, end);
}

/** Refs named anywhere in a text. */
function refsIn(text: string): Set<string> {
  return new Set(text.match(/\be\d{3,5}\b/g) ?? []);
}

describe('pageUiTree', () => {
  const tree = renderUiTree(parseUiHierarchy(contactsXml(100)));

  it('returns a tree that fits whole, without a marker', () => {
    const small = renderUiTree(parseUiHierarchy(contactsXml(3)));
    const page = pageUiTree(small.lines, { maxTokens: 4000 });
    expect(page.text).toBe(small.text);
    expect(page).toMatchObject({ totalLines: small.lines.length, shownLines: small.lines.length });
    expect(page.nextCursor).toBeUndefined();
  });

  it('cuts a big tree at a line within the budget, with the marker and the cursor', () => {
    expect(tree.lines.length).toBe(302);
    const page = pageUiTree(tree.lines, { maxTokens: 1000 });
    expect(countTokens(page.text)).toBeLessThanOrEqual(1000);
    const shown = treeLinesOf(page.text);
    expect(shown).toEqual(tree.lines.slice(0, shown.length).map((line) => line.text));
    expect(page.nextCursor).toBe(shown.length);
    const cut = tree.lines.slice(shown.length);
    const cutActionable = cut.filter((line) => line.actionable).length;
    expect(page.text.split('\n').at(-1)).toMatch(
      new RegExp(
        `^\\[cut: lines 1-${shown.length} of 302 shown; ${cut.length} more lines with ${cutActionable} actionable nodes \\([\\d,]+ tokens\\) not shown\\. Continue with ui_dump \\{"cursor": ${shown.length}\\}\\]$`,
      ),
    );
  });

  it('continues from the cursor without repeating or skipping a line, to the end', () => {
    const pages: string[][] = [];
    let cursor: number | undefined = 0;
    while (cursor !== undefined) {
      const page = pageUiTree(tree.lines, { maxTokens: 1000, cursor });
      expect(countTokens(page.text)).toBeLessThanOrEqual(1000);
      pages.push(treeLinesOf(page.text));
      if (page.nextCursor === undefined) {
        expect(page.text.split('\n').at(-1)).toBe(
          `[lines ${cursor + 1}-302 of 302; the end of the screen]`,
        );
      }
      cursor = page.nextCursor;
      expect(pages.length).toBeLessThan(20);
    }
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.flat()).toEqual(tree.lines.map((line) => line.text));
  });

  it('names every actionable node of the cut part by ref when the budget allows', () => {
    const page = pageUiTree(tree.lines, { maxTokens: 3000 });
    expect(page.nextCursor).toBeDefined();
    const refs = refsIn(page.text);
    const actionable = tree.lines.filter((line) => line.actionable);
    expect(actionable.length).toBe(201);
    expect(actionable.filter((line) => !refs.has(line.ref))).toEqual([]);
    expect(page.listedActionable).toBe(page.cutActionable);
    expect(page.text).toContain(
      `[actionable nodes further down, ${page.cutActionable} of ${page.cutActionable}:]`,
    );
  });

  it('falls back to bare refs when labels do not fit, and says how many it lists', () => {
    const big = renderUiTree(parseUiHierarchy(contactsXml(400)));
    const page = pageUiTree(big.lines, { maxTokens: 4000 });
    const listStart = page.text.split('\n').findIndex((line) => line.startsWith('[actionable'));
    const listLines = page.text.split('\n').slice(listStart + 1, -1);
    expect(listLines.every((line) => /^e\d{3,5}( e\d{3,5})*$/.test(line))).toBe(true);
    expect(page.listedActionable).toBeGreaterThan(300);
    expect(page.text).toContain(
      `[actionable nodes further down, ${page.listedActionable} of ${page.cutActionable}:]`,
    );
    expect(countTokens(page.text)).toBeLessThanOrEqual(4000);
  });

  it('keeps one line when a single line exceeds the budget, so the cursor always moves', () => {
    const lines: UiTreeLine[] = [
      { text: `"${'x'.repeat(2000)}"`, ref: '', key: 'k1', actionable: false, compact: '' },
      {
        text: '[e002] Button "OK"',
        ref: 'e002',
        key: 'k2',
        actionable: true,
        compact: '[e002] Button "OK"',
      },
    ];
    const page = pageUiTree(lines, { maxTokens: 200 });
    expect(page.nextCursor).toBe(1);
    expect(page.text).toContain('1 more lines with 1 actionable nodes');
  });
});
