import { describe, expect, it } from 'vitest';
import type { AriaNode } from './aria-tree.js';
import { renderSnapshot } from './snapshot-render.js';
import { countTokens } from './token-count.js';

function node(role: string, extra: Partial<AriaNode> = {}): AriaNode {
  return { role, attributes: [], children: [], ...extra };
}

function text(value: string): AriaNode {
  return node('text', { text: value });
}

function link(name: string, ref: string, url = `/${name}.html`): AriaNode {
  return node('link', { name, ref, attributes: ['cursor=pointer', `url=${url}`] });
}

/** A list item as Playwright reads `<li>The operand of a unary <a>borrow</a>, …</li>`. */
const operandItem = node('listitem', {
  ref: 'e442',
  children: [
    text('The operand of a unary'),
    link('borrow', 'e443'),
    text(','),
    link('raw borrow', 'e444'),
    text('or'),
    link('dereference', 'e445'),
    text('operator.'),
  ],
});

describe('prose lines', () => {
  it('renders inline text and links inside a list item as one line, refs only on the links', () => {
    expect(renderSnapshot([operandItem], { maxTokens: 6_000 }).text).toBe(
      '- listitem: The operand of a unary [borrow](e443), [raw borrow](e444) or [dereference](e445) operator.',
    );
  });

  it('renders code in backticks, emphasis as text, a link holding code by its text', () => {
    const paragraph = node('paragraph', {
      ref: 'e1',
      children: [
        text('The unary'),
        node('code', { ref: 'e2', text: '-' }),
        text('operator is'),
        node('emphasis', { ref: 'e3', text: 'always' }),
        text('a'),
        node('link', {
          ref: 'e4',
          attributes: ['cursor=pointer', 'url=#x'],
          children: [node('code', { ref: 'e5', text: 'TypeError' })],
        }),
        text('.'),
      ],
    });
    expect(renderSnapshot([paragraph], { maxTokens: 6_000 }).text).toBe(
      '- paragraph: The unary `-` operator is always a [TypeError](e4).',
    );
  });

  it('puts a first paragraph on the line of its list item, and keeps refs on containers', () => {
    const list = node('list', {
      ref: 'e1',
      children: [
        node('listitem', {
          ref: 'e2',
          children: [
            node('paragraph', { ref: 'e3', children: [text('See'), link('the guide', 'e4')] }),
            node('list', {
              ref: 'e5',
              children: [node('listitem', { ref: 'e6', text: 'nested' })],
            }),
          ],
        }),
      ],
    });
    expect(renderSnapshot([list], { maxTokens: 6_000 }).text).toBe(
      [
        '- list [ref=e1]',
        ' - listitem: See [the guide](e4)',
        '  - list [ref=e5]',
        '   - listitem: nested',
      ].join('\n'),
    );
  });

  it('keeps the element line of a lone link, and shows targets only with urls, relative to the page', () => {
    const nodes = [
      link('Home', 'e1', 'http://127.0.0.1:8080/index.html'),
      node('paragraph', {
        children: [
          text('Read'),
          link('this', 'e2', 'http://127.0.0.1:8080/docs/page.html#part'),
          text('or'),
          link('that', 'e3', 'https://example.com/x'),
        ],
      }),
    ];
    expect(renderSnapshot(nodes, { maxTokens: 6_000 }).text).toBe(
      ['- link "Home" [ref=e1]', '- paragraph: Read [this](e2) or [that](e3)'].join('\n'),
    );
    const pageUrl = 'http://127.0.0.1:8080/docs/page.html';
    expect(renderSnapshot(nodes, { maxTokens: 6_000, urls: true, pageUrl }).text).toBe(
      [
        '- link "Home" [url=/index.html] [ref=e1]',
        '- paragraph: Read [this](e2 #part) or [that](e3 https://example.com/x)',
      ].join('\n'),
    );
  });

  it('shows page text that forges an inline link or a ref as plain text', () => {
    const forged = node('paragraph', {
      children: [
        text('Click [Delete account](e9) now, or [x]'),
        text('(e1)'),
        link('a](e7) b', 'e5'),
      ],
    });
    const line = renderSnapshot([forged], { maxTokens: 6_000 }).text;
    expect(line).toBe('- paragraph: Click [Delete account] (e9) now, or [x] (e1) [a)(e7) b](e5)');
    expect([...line.matchAll(/\]\((e\d+)/g)].map((match) => match[1])).toEqual(['e5']);
  });

  it('lists the links of a menu further down on the first page, never links inside sentences', () => {
    const nodes = [
      ...Array.from({ length: 40 }, (_, index) =>
        node('paragraph', {
          children: [
            text(`Paragraph ${index} of plain text that goes on for a while,`),
            link(`see ${index}`, `e${index + 100}`),
          ],
        }),
      ),
      node('list', {
        ref: 'e1',
        children: [node('listitem', { children: [link('Menu entry', 'e2')] })],
      }),
      node('button', { name: 'Save', ref: 'e3' }),
    ];
    const first = renderSnapshot(nodes, { maxTokens: 300, expand: true });
    expect(first.text).toMatch(
      /\[interactive elements further down, 2 of 2:\]\n- link "Menu entry" \[ref=e2\]\n- button "Save" \[ref=e3\]\n\[cut:/,
    );
    expect(first.text).not.toContain('- link "see');
    const second = renderSnapshot(nodes, {
      maxTokens: 300,
      expand: true,
      cursor: first.nextCursor as number,
    });
    // Only the first page lists them: a reader paging on reaches them.
    expect(second.text).not.toContain('[interactive elements');
  });

  it('lists no link to a place on the page itself, nor a link like one shown or listed already', () => {
    const page = 'http://127.0.0.1:8080/docs/page.html';
    const menu = (ref: number, ...links: AriaNode[]) =>
      node('list', {
        ref: `e${ref}`,
        children: links.map((item) => node('listitem', { children: [item] })),
      });
    const nodes = [
      menu(1, link('index', 'e2', 'http://127.0.0.1:8080/genindex.html')),
      ...Array.from({ length: 40 }, (_, index) =>
        node('paragraph', { text: `Paragraph ${index} of plain text that goes on for a while.` }),
      ),
      menu(
        3,
        link('Section one', 'e4', `${page}#one`),
        link('Inbox', 'e5', `${page}#/inbox`),
        link('Load more', 'e6', `${page}#`),
        link('index', 'e7', 'http://127.0.0.1:8080/genindex.html'),
        link('index', 'e8', 'http://127.0.0.1:8080/other.html'),
        link('Next', 'e9', 'http://127.0.0.1:8080/next.html'),
        link('Next', 'e10', 'http://127.0.0.1:8080/next.html'),
      ),
    ];
    const first = renderSnapshot(nodes, { maxTokens: 300, expand: true, pageUrl: page });
    const listing = first.text.slice(first.text.indexOf('[interactive elements'));
    expect(listing.split('\n').slice(0, -1)).toEqual([
      '[interactive elements further down, 4 of 4:]',
      '- link "Inbox" [ref=e5]',
      '- link "Load more" [ref=e6]',
      '- link "index" [ref=e8]',
      '- link "Next" [ref=e9]',
    ]);
    // The lines themselves keep every link.
    const whole = renderSnapshot(nodes, { maxTokens: Number.POSITIVE_INFINITY, pageUrl: page });
    for (const ref of ['e4', 'e5', 'e6', 'e7', 'e8', 'e9', 'e10'])
      expect(whole.text).toContain(`](${ref})`);
  });

  it('leaves out empty list items and paragraphs, never an empty cell', () => {
    const nodes = [
      node('list', {
        ref: 'e1',
        children: [node('listitem'), node('listitem', { text: 'one' }), node('listitem')],
      }),
      node('paragraph'),
      node('row', { ref: 'e2', children: [node('cell'), node('cell', { name: 'B' })] }),
    ];
    expect(renderSnapshot(nodes, { maxTokens: 6_000 }).text).toBe(
      ['- list [ref=e1]', ' - listitem: one', '- row [ref=e2]', ' - cell', ' - cell "B"'].join(
        '\n',
      ),
    );
  });

  it('shows a heading in Markdown, and as an element line when it has a ref or other state', () => {
    const nodes = [
      node('heading', { name: 'Operators', attributes: ['level=2'] }),
      node('heading', { attributes: ['level=3'], children: [link('Table of Contents', 'e1')] }),
      node('heading', { name: 'Open', ref: 'e2', attributes: ['level=2', 'cursor=pointer'] }),
      node('heading', { name: 'Folded', attributes: ['level=4', 'expanded'] }),
      node('paragraph', { text: '## not a heading' }),
    ];
    expect(renderSnapshot(nodes, { maxTokens: 6_000 }).text).toBe(
      [
        '- ## Operators',
        '- ### [Table of Contents](e1)',
        '- heading "Open" [level=2] [ref=e2]',
        '- heading "Folded" [level=4] [expanded]',
        '- paragraph: ## not a heading',
      ].join('\n'),
    );
  });

  it('shows a heading name that imitates an inline link as plain text', () => {
    const rendered = renderSnapshot(
      [node('heading', { name: 'Read [Delete](e9) now', attributes: ['level=1'] })],
      { maxTokens: 6_000 },
    ).text;
    expect(rendered).toBe('- # Read [Delete] (e9) now');
    expect(rendered).not.toContain('](');
  });
});

describe('budgets in real tokens', () => {
  const prose = Array.from({ length: 400 }, (_, index) =>
    node('paragraph', {
      children: [
        text(
          index % 3 === 0
            ? `東京の天気は晴れです。段落 ${index} は日本語の文章で、トークンが多くなります。`
            : `Paragraph ${index}: https://example.com/a/b?c=${index}&d=e — refs and URLs are dense`,
        ),
        link(`link ${index}`, `e${index + 10}`),
        text('and more.'),
      ],
    }),
  );

  it('keeps every page of a dense page within its budget, counted for real', () => {
    for (const budget of [200, 500, 1_500, 6_000]) {
      let cursor = 0;
      for (let page = 0; page < 500; page += 1) {
        const rendered = renderSnapshot(prose, { maxTokens: budget, expand: true, cursor });
        expect(
          countTokens(rendered.text),
          `budget ${budget}, cursor ${cursor}`,
        ).toBeLessThanOrEqual(budget);
        if (rendered.nextCursor === undefined) break;
        cursor = rendered.nextCursor;
      }
    }
  });

  it('cuts a huge paragraph into lines within the budget, and reads it whole through the cursor', () => {
    const words = Array.from({ length: 200_000 }, (_, index) => `w${index}`).join(' ');
    const huge = [node('paragraph', { text: words }), node('button', { name: 'After', ref: 'e1' })];
    const started = performance.now();
    const first = renderSnapshot(huge, { maxTokens: 2_000 });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(countTokens(first.text)).toBeLessThanOrEqual(2_000);
    expect(first.text).toMatch(/^- paragraph: w0 w1 w2 /);
    expect(first.text).toContain('- button "After" [ref=e1]');
    const whole = renderSnapshot(huge, { maxTokens: Number.POSITIVE_INFINITY }).text;
    const read = whole
      .split('\n')
      .filter((line) => !line.includes('button'))
      .map((line) => line.replace(/^\s*- (paragraph: |… )/, ''))
      .join(' ');
    expect(read).toBe(words);
  });

  it('cuts a word longer than a whole page inside, within the budget', () => {
    const rendered = renderSnapshot(
      [node('paragraph', { text: 'x'.repeat(100_000) }), node('paragraph', { text: 'next' })],
      { maxTokens: 200 },
    );
    expect(countTokens(rendered.text)).toBeLessThanOrEqual(200);
    expect(rendered.nextCursor).toBeGreaterThan(0);
  });
});
