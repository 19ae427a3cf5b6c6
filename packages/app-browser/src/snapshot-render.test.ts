import { describe, expect, it } from 'vitest';
import type { AriaNode } from './aria-tree.js';
import { renderSnapshot, shorten } from './snapshot-render.js';
import { countTokens } from './token-count.js';

function node(role: string, extra: Partial<AriaNode> = {}): AriaNode {
  return { role, attributes: [], children: [], ...extra };
}

function table(rows: number): AriaNode[] {
  return [
    node('table', {
      ref: 'e1',
      children: Array.from({ length: rows }, (_, index) =>
        node('row', {
          ref: `e${index * 3 + 2}`,
          children: [
            node('cell', { name: `Item ${index + 1}`, ref: `e${index * 3 + 3}` }),
            node('button', { name: 'Edit', ref: `e${index * 3 + 4}` }),
          ],
        }),
      ),
    }),
  ];
}

describe('renderSnapshot', () => {
  it('renders one line per node with state, a ref on what can be acted on, and headings in Markdown', () => {
    const nodes = [
      node('heading', { name: 'Title', ref: 'e1', attributes: ['level=1'] }),
      node('checkbox', { name: 'Agree', ref: 'e2', attributes: ['checked'] }),
      node('paragraph', { ref: 'e3', text: 'Hello' }),
    ];
    expect(renderSnapshot(nodes, { maxTokens: 6_000 }).text).toBe(
      ['- # Title', '- checkbox "Agree" [checked] [ref=e2]', '- paragraph: Hello'].join('\n'),
    );
  });

  it('collapses repeated rows past the budget, keeping the first three and stating the count and refs', () => {
    const rendered = renderSnapshot(table(30), { maxTokens: 200 });
    const lines = rendered.text.split('\n');
    expect(lines[0]).toBe('- table [ref=e1]');
    expect(lines[2]).toBe('  - cell "Item 1"');
    expect(lines.filter((line) => line.includes('- row ')).length).toBe(3);
    expect(lines.at(-1)).toBe(
      ' - … 27 more row items like the above (refs e11…e89), 27 interactive elements inside; browser_snapshot with expand: true (or find) shows them',
    );
  });

  it('keeps every row when the tree fits the budget, or with expand', () => {
    expect(
      renderSnapshot(table(10), { maxTokens: 6_000 })
        .text.split('\n')
        .filter((line) => line.includes('- row ')).length,
    ).toBe(10);
    const rendered = renderSnapshot(table(10), { maxTokens: 6_000, expand: true });
    expect(rendered.text.split('\n').filter((line) => line.includes('- row ')).length).toBe(10);
    expect(rendered.nextCursor).toBeUndefined();
  });

  it('collapses a run of like items that fits but would take more than half the budget, and keeps the rest whole', () => {
    // 30 rows take about 880 tokens: whole within a 6,000-token budget, an overview within 1,200.
    const whole = renderSnapshot(table(30), { maxTokens: 6_000 });
    expect(whole.list.collapsed).toBe(false);
    expect(countTokens(whole.text)).toBeLessThan(1_000);
    expect(whole.text.split('\n').filter((line) => line.includes('- row ')).length).toBe(30);
    const overview = renderSnapshot(table(30), { maxTokens: 1_200 });
    expect(overview.list.collapsed).toBe(true);
    expect(overview.nextCursor).toBeUndefined();
    expect(overview.text.split('\n').at(-1)).toContain('… 27 more row items like the above');
    // The rows are still there for the asking.
    const expanded = renderSnapshot(table(30), { maxTokens: 1_200, expand: true });
    expect(expanded.text.split('\n').filter((line) => line.includes('- row ')).length).toBe(30);
  });

  it('cuts at a node boundary past the budget, lists interactive elements further down, and gives a cursor that continues', () => {
    const rendered = renderSnapshot(table(400), { maxTokens: 1_000, expand: true });
    expect(rendered.tokens).toBeLessThanOrEqual(1_000);
    expect(countTokens(rendered.text)).toBeLessThanOrEqual(rendered.tokens);
    expect(rendered.nextCursor).toBeGreaterThan(0);
    const lines = rendered.text.split('\n');
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^\\[cut: nodes 1-${rendered.nextCursor} of 1201 shown, ≈[\\d,]+ tokens more\\. Continue with browser_snapshot cursor: ${rendered.nextCursor}, page: [0-9a-f]{8}\\]$`,
      ),
    );
    expect(rendered.text).toContain('[interactive elements further down, ');
    const firstListed = lines.findIndex((line) => line.startsWith('[interactive elements'));
    expect(lines[firstListed + 1]).toMatch(/^- button "Edit" \[ref=e\d+\]$/);
    for (const line of lines) expect(line.endsWith('[ref=')).toBe(false);

    const next = renderSnapshot(table(400), {
      maxTokens: 1_000,
      expand: true,
      cursor: rendered.nextCursor as number,
    });
    expect(next.shownNodes).toBeGreaterThan(0);
    expect(next.text.split('\n')[0]).toMatch(/^ *- (row|cell|button)\b/);
    // A reader paging on reaches the controls further down; only the first page lists them.
    expect(next.text).not.toContain('[interactive elements');
    expect(next.text.split('\n').at(-1)).toMatch(/^\[cut: nodes /);
  });

  it('pages through the whole tree without losing or repeating a node', () => {
    const nodes = table(300);
    const seen: string[] = [];
    let cursor = 0;
    for (let page = 0; page < 100; page += 1) {
      const rendered = renderSnapshot(nodes, { maxTokens: 800, expand: true, cursor });
      const cut = rendered.text.indexOf('\n[interactive elements');
      const marker = rendered.text.indexOf('\n[cut:');
      const end = cut >= 0 ? cut : marker >= 0 ? marker : rendered.text.length;
      seen.push(...rendered.text.slice(0, end).split('\n'));
      if (rendered.nextCursor === undefined) break;
      cursor = rendered.nextCursor;
    }
    const refs = seen.map((line) => /\[ref=(e\d+)\]/.exec(line)?.[1]).filter(Boolean);
    expect(new Set(refs).size).toBe(601);
    expect(refs.length).toBe(601);
    const cells = seen.filter((line) => line.includes('- cell "Item '));
    expect(new Set(cells).size).toBe(300);
    expect(cells.length).toBe(300);
  });

  it('scopes to the subtree of a ref and reports a missing ref', () => {
    const rendered = renderSnapshot(table(2), { maxTokens: 6_000, scopeRef: 'e5' });
    expect(rendered.text).toBe(
      ['- row [ref=e5]', ' - cell "Item 2"', ' - button "Edit" [ref=e7]'].join('\n'),
    );
    expect(renderSnapshot(table(2), { maxTokens: 6_000, scopeRef: 'e99' }).scopeMissing).toBe(true);
  });

  it('finds nodes by text with their ancestors, inside collapsed runs too', () => {
    const rendered = renderSnapshot(table(50), {
      maxTokens: 6_000,
      find: (line) => /Item 42\b/.test(line),
    });
    expect(rendered.text).toBe(
      ['- table [ref=e1]', ' - row [ref=e125]', '  - cell "Item 42"'].join('\n'),
    );
  });

  it('shortens long names and states their length', () => {
    const long = 'x'.repeat(1_000);
    expect(shorten(long, 160)).toBe(`${'x'.repeat(120)}… (1,000 chars)`);
    const rendered = renderSnapshot([node('button', { name: long, ref: 'e1' })], {
      maxTokens: 6_000,
    });
    expect(rendered.text).toBe(`- button "${'x'.repeat(120)}… (1,000 chars)" [ref=e1]`);
  });
});
