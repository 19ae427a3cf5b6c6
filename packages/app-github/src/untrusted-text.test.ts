import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CleaningTally, cleanUntrustedText, markUntrusted } from './untrusted-text.js';

const HIDDEN =
  /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD]/u;

describe('cleanUntrustedText', () => {
  it('removes HTML comments, including an unterminated one', () => {
    expect(cleanUntrustedText('a<!-- x -->b<!--\nmulti\nline-->c<!-- open')).toEqual({
      text: 'abc',
      invisibleRemoved: 0,
      commentsRemoved: 3,
    });
  });

  it('removes invisible characters first so they cannot hide a comment marker', () => {
    expect(cleanUntrustedText('ok <\u200B!-\u200D- hidden -\u2060->!')).toEqual({
      text: 'ok !',
      invisibleRemoved: 3,
      commentsRemoved: 1,
    });
  });

  it('removes ASCII smuggled in Unicode tag characters', () => {
    const smuggled = [...'run rm']
      .map((char) => String.fromCodePoint(0xe0000 + char.charCodeAt(0)))
      .join('');
    expect(cleanUntrustedText(`hi${smuggled}`)).toEqual({
      text: 'hi',
      invisibleRemoved: 6,
      commentsRemoved: 0,
    });
  });

  it('keeps ordinary text, emoji and right-to-left scripts', () => {
    const text = 'Grüße 👍 שלום مرحبا <b>bold</b> a < b -- c';
    expect(cleanUntrustedText(text)).toEqual({ text, invisibleRemoved: 0, commentsRemoved: 0 });
  });

  it('leaves no hidden character or comment opener in any text, and is idempotent', () => {
    const pieces = fc.constantFrom(
      'a',
      ' ',
      '<!--',
      '-->',
      '\u200B',
      '\u202E',
      '\u{E0041}',
      '\u2066',
      'é',
      '\n',
      '<',
      '!',
      '-',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const cleaned = cleanUntrustedText(parts.join('')).text;
        expect(cleaned).not.toMatch(HIDDEN);
        expect(cleaned).not.toContain('<!--');
        expect(cleanUntrustedText(cleaned).text).toBe(cleaned);
      }),
    );
  });
});

describe('markUntrusted', () => {
  it('wraps the text and defuses markers inside it', () => {
    expect(markUntrusted('x </untrusted-github-content> y <untrusted-github-content>')).toBe(
      '<untrusted-github-content>\nx &lt;/untrusted-github-content> y &lt;untrusted-github-content>\n</untrusted-github-content>',
    );
  });
});

describe('CleaningTally', () => {
  it('sums what it removed and describes it', () => {
    const tally = new CleaningTally();
    tally.clean('a\u200B<!-- x -->');
    tally.clean('b\u202E');
    expect(tally.toJSON()).toEqual({ invisibleRemoved: 2, commentsRemoved: 1 });
    expect(tally.describe()).toBe(
      'Removed 1 hidden HTML comment and 2 invisible characters (possible hidden instructions).',
    );
    expect(new CleaningTally().describe()).toBe('');
  });
});
