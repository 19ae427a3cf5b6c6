import {
  createToolExecutor,
  renderResult,
  ToolRegistry,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRegexTools } from './regex-tools.js';

const registry = new ToolRegistry();
registry.registerAll(createRegexTools(), { owner: 'test' });
const executor = createToolExecutor({ registry });

function call(id: string, args: Record<string, unknown>): Promise<ToolResult> {
  return executor.execute(id, args);
}

function dataOf(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(renderResult(result));
  return result.data as Record<string, unknown>;
}

describe('regex_extract', () => {
  it('returns every match with its index and numbered and named groups', async () => {
    const result = await call('regex_extract', {
      text: 'Released 2024-05 and 2025-11.',
      pattern: '(?<year>\\d{4})-(\\d{2})',
    });
    expect(dataOf(result)).toEqual({
      count: 2,
      truncated: false,
      matches: [
        { match: '2024-05', index: 9, groups: ['2024', '05'], named: { year: '2024' } },
        { match: '2025-11', index: 21, groups: ['2025', '11'], named: { year: '2025' } },
      ],
    });
    expect(result.ok && result.content).toBe(
      '2 matches:\n@9: "2024-05" {"year":"2024"}\n@21: "2025-11" {"year":"2025"}',
    );
  });

  it('returns only the requested group, by number or by name', async () => {
    const byNumber = await call('regex_extract', {
      text: 'a=1, b=2',
      pattern: '(\\w)=(\\d)',
      group: 2,
    });
    expect((dataOf(byNumber).matches as Array<{ match: string }>).map((m) => m.match)).toEqual([
      '1',
      '2',
    ]);
    const byName = await call('regex_extract', {
      text: 'a=1, b=2',
      pattern: '(?<key>\\w)=\\d',
      group: 'key',
    });
    expect((dataOf(byName).matches as Array<{ match: string }>).map((m) => m.match)).toEqual([
      'a',
      'b',
    ]);
  });

  it('applies the ignoreCase, multiline and dotAll flags', async () => {
    const text = 'Alpha\nbeta\nALPHA';
    const insensitive = await call('regex_extract', {
      text,
      pattern: '^alpha$',
      ignoreCase: true,
      multiline: true,
    });
    expect(dataOf(insensitive).count).toBe(2);
    const dotAll = await call('regex_extract', { text, pattern: 'a.b', dotAll: true });
    expect((dataOf(dotAll).matches as Array<{ match: string }>)[0]?.match).toBe('a\nb');
  });

  it('stops at maxMatches and says that more exist', async () => {
    const result = await call('regex_extract', {
      text: 'x'.repeat(10),
      pattern: 'x',
      maxMatches: 3,
    });
    expect(dataOf(result)).toMatchObject({ count: 3, truncated: true });
    expect(result.ok && result.content).toContain('stopped at maxMatches=3');
  });

  it('says "No matches." when nothing matches', async () => {
    const result = await call('regex_extract', { text: 'abc', pattern: '\\d' });
    expect(result).toEqual({
      ok: true,
      content: 'No matches.',
      data: { count: 0, truncated: false, matches: [] },
    });
  });

  it('returns at once on the catastrophic pattern (a+)+$ over 50 000 a followed by b', {
    timeout: 20_000,
  }, async () => {
    const result = await call('regex_extract', {
      text: `${'a'.repeat(50_000)}b`,
      pattern: '(a+)+$',
    });
    expect(result).toMatchObject({ ok: true, content: 'No matches.' });
  });

  it('refuses a backreference with INVALID_ARGUMENT naming the pattern', async () => {
    const result = await call('regex_extract', { text: 'aa', pattern: '(a)\\1' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'pattern' });
    expect(result.error.message).toContain('backreference \\1');
    expect(result.error.hint).toContain('without backreferences or lookahead');
  });

  it('refuses lookahead and named backreferences but accepts them inside a class', async () => {
    for (const pattern of ['a(?=b)', 'a(?!b)', '(?<x>a)\\k<x>']) {
      const result = await call('regex_extract', { text: 'ab', pattern });
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', field: 'pattern' },
      });
    }
    const inClass = await call('regex_extract', { text: '(?=1', pattern: '[(?=\\]]+' });
    expect(dataOf(inClass).count).toBe(1);
  });

  it('reports a malformed pattern as INVALID_ARGUMENT naming the pattern', async () => {
    const result = await call('regex_extract', { text: 'x', pattern: '[a-' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'pattern' },
    });
    if (!result.ok) expect(result.error.message).toMatch(/^pattern: invalid regular expression: /);
  });

  it('names an unknown group', async () => {
    const result = await call('regex_extract', { text: 'x', pattern: '(x)', group: 'name' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'group' },
    });
  });

  it('rejects missing and mistyped arguments before running', async () => {
    const missing = await call('regex_extract', { text: 'x' });
    expect(missing).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'pattern' },
    });
    const mistyped = await call('regex_extract', { text: 42, pattern: 'x' });
    expect(mistyped).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'text' },
    });
  });
});

describe('match time limit', () => {
  const limited = new ToolRegistry();
  limited.registerAll(createRegexTools({ matchTimeLimitMs: 100 }), { owner: 'test' });
  const limitedExecutor = createToolExecutor({ registry: limited });
  // Linear, but 500 NFA states per character of 200 000: seconds of work without the limit.
  const heavy = { text: `${'a'.repeat(200_000)}b`, pattern: '(.*a){100}$' };

  it('ends a regex_extract that exceeds it with TIMEOUT, not retryable', async () => {
    const result = await limitedExecutor.execute('regex_extract', heavy);
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'TIMEOUT',
        retryable: false,
        message: 'regex_extract was stopped after 100 ms of matching',
      },
    });
  });

  it('ends a regex_replace that exceeds it with TIMEOUT and keeps working afterwards', async () => {
    const result = await limitedExecutor.execute('regex_replace', { ...heavy, replacement: 'x' });
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    const next = await limitedExecutor.execute('regex_replace', {
      text: 'abc',
      pattern: 'b',
      replacement: 'B',
    });
    expect(next).toMatchObject({ ok: true, content: 'aBc' });
  });
});

describe('regex_replace', () => {
  it('replaces every match with numbered and named group references', async () => {
    const result = await call('regex_replace', {
      text: 'john@example.com, ann@test.org',
      pattern: '(?<user>\\w+)@(\\w+)\\.\\w+',
      replacement: '$<user> at $2',
    });
    expect(result).toEqual({
      ok: true,
      content: 'john at example, ann at test',
      data: { result: 'john at example, ann at test', replacements: 2 },
    });
  });

  it("expands $&, $`, $' and $$ like String.prototype.replace", async () => {
    const text = 'ab-cd';
    const replacement = "[$&|$`|$'|$$|$9]";
    const expected = text.replace(/-/g, replacement);
    const result = await call('regex_replace', { text, pattern: '-', replacement });
    expect(dataOf(result).result).toBe(expected);
  });

  it('replaces only the first match when replaceAll is false', async () => {
    const result = await call('regex_replace', {
      text: 'a a a',
      pattern: 'a',
      replacement: 'b',
      replaceAll: false,
    });
    expect(dataOf(result)).toEqual({ result: 'b a a', replacements: 1 });
  });

  it('handles empty matches and astral characters like JavaScript', async () => {
    const text = 'a😀b';
    const result = await call('regex_replace', { text, pattern: '(?:)', replacement: '-' });
    expect(dataOf(result).result).toBe(text.replace(/(?:)/gu, '-'));
  });

  it('returns at once on the catastrophic pattern', { timeout: 20_000 }, async () => {
    const text = `${'a'.repeat(50_000)}b`;
    const result = await call('regex_replace', { text, pattern: '(a+)+$', replacement: 'x' });
    expect(dataOf(result)).toEqual({ result: text, replacements: 0 });
  });

  it('refuses a result larger than 10 MB with INVALID_ARGUMENT naming the replacement', async () => {
    const result = await call('regex_replace', {
      text: 'a'.repeat(1_000),
      pattern: '(?:)',
      replacement: 'x'.repeat(20_000),
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'replacement' },
    });
  });

  it('requires the replacement', async () => {
    const result = await call('regex_replace', { text: 'x', pattern: 'x' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'replacement' },
    });
  });
});

describe('regex_replace against the JavaScript engine', () => {
  const patterns = [
    'a',
    'a+',
    'b*',
    '(a)(b)?',
    '(?<x>[ab])c',
    '^a',
    'c$',
    '(?:)',
    '[^a]+',
    '(a|ab)(c|bcd)?',
  ];
  const template = fc
    .array(
      fc.constantFrom('x', '-', '$', '$$', '$&', '$`', "$'", '$1', '$2', '$10', '$<x>', '$<', '$0'),
      {
        maxLength: 6,
      },
    )
    .map((parts) => parts.join(''));

  it('gives the same text as String.prototype.replace for common patterns', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', '\n'), maxLength: 30 }),
        fc.constantFrom(...patterns),
        template,
        fc.boolean(),
        async (text, pattern, replacement, replaceAll) => {
          const expected = text.replace(new RegExp(pattern, replaceAll ? 'g' : ''), replacement);
          const result = await call('regex_replace', { text, pattern, replacement, replaceAll });
          expect(dataOf(result).result).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds the same matches as String.prototype.matchAll for common patterns', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 30 }),
        fc.constantFrom(...patterns),
        async (text, pattern) => {
          const expected = [...text.matchAll(new RegExp(pattern, 'g'))].map((m) => [m[0], m.index]);
          const result = await call('regex_extract', { text, pattern });
          const matches = dataOf(result).matches as Array<{ match: string; index: number }>;
          expect(matches.map((m) => [m.match, m.index])).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
