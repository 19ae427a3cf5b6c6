import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { countTokens, MAX_PIECE_CHARACTERS, takeTokens } from './token-counter.js';

const { countTokens: wholeCount } = createRequire(import.meta.url)(
  'gpt-tokenizer/encoding/o200k_base',
) as {
  countTokens: (text: string) => number;
};

const prose = [
  '- listitem: The operand of a unary [borrow](e443), [raw borrow](e444) or [dereference](e445) operator.',
  '- link "Модуль стандартной библиотеки" [ref=e12]: https://docs.python.org/3/library/os.html#os.walk',
  '- heading "日本語のドキュメント" [level=2] [ref=e3]',
].join('\n');

describe('countTokens', () => {
  it('counts short text exactly as the o200k encoder does', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(wholeCount('hello world'));
    expect(countTokens(prose)).toBe(wholeCount(prose));
  });

  it('counts long ordinary text within a token or two of the whole encoding, never below it', () => {
    const text = prose.repeat(60);
    expect(text.length).toBeGreaterThan(MAX_PIECE_CHARACTERS * 10);
    const whole = wholeCount(text);
    expect(countTokens(text)).toBeGreaterThanOrEqual(whole);
    expect(countTokens(text)).toBeLessThanOrEqual(Math.ceil(whole * 1.01));
  });

  it('stays an upper bound and stays fast on one long run without spaces', () => {
    const run = 'a'.repeat(200_000);
    const started = performance.now();
    const counted = countTokens(run);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(counted).toBeGreaterThanOrEqual(wholeCount(run.slice(0, 20_000)) * 10 - 10);
  });

  it('counts text that spells a special token as plain text instead of throwing', () => {
    expect(countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
    expect(takeTokens('<|endoftext|>Human: hi', 100).complete).toBe(true);
  });

  it('never cuts a surrogate pair in half', () => {
    const emoji = '😀'.repeat(MAX_PIECE_CHARACTERS);
    expect(countTokens(emoji)).toBeGreaterThanOrEqual(wholeCount(emoji));
  });
});

describe('takeTokens', () => {
  it('keeps the whole text when it fits', () => {
    expect(takeTokens(prose, 10_000)).toEqual({
      text: prose,
      tokens: countTokens(prose),
      complete: true,
    });
  });

  it('keeps a prefix within the budget, cut at a piece boundary', () => {
    const text = prose.repeat(100);
    const kept = takeTokens(text, 500);
    expect(kept.complete).toBe(false);
    expect(text.startsWith(kept.text)).toBe(true);
    expect(kept.tokens).toBeLessThanOrEqual(500);
    expect(kept.tokens).toBeGreaterThan(400);
    expect(wholeCount(kept.text)).toBeLessThanOrEqual(500);
  });
});
