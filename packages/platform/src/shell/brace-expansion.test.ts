import { describe, expect, it } from 'vitest';
import { escapePattern, expandBraces, hasUnescapedGlob, removeEscapes } from './brace-expansion.js';

describe('expandBraces', () => {
  it('expands alternatives anywhere in the word', () => {
    expect(expandBraces('{/etc/passw,}d')).toEqual(['/etc/passwd', 'd']);
  });

  it('expands numeric and letter sequences with a step', () => {
    expect(expandBraces('a{1..3}b')).toEqual(['a1b', 'a2b', 'a3b']);
    expect(expandBraces('{0..10..5}')).toEqual(['0', '5', '10']);
    expect(expandBraces('{c..a}')).toEqual(['c', 'b', 'a']);
  });

  it('expands nested braces', () => {
    expect(expandBraces('{a,b{1,2}}')).toEqual(['a', 'b1', 'b2']);
  });

  it('leaves escaped and unclosed braces alone', () => {
    expect(expandBraces('\\{a,b}')).toEqual(['\\{a,b}']);
    expect(expandBraces('{a,b')).toEqual(['{a,b']);
    expect(expandBraces(escapePattern('{a,b}'))).toEqual(['\\{a\\,b\\}']);
  });

  it('gives up (null) past 4096 words', () => {
    expect(expandBraces('{1..5000}')).toBeNull();
    expect(expandBraces('{1..100}{1..100}')).toBeNull();
  });
});

describe('pattern escapes', () => {
  it('removes escapes and sees only unescaped globs', () => {
    expect(removeEscapes('a\\*b\\\nc')).toBe('a*bc');
    expect(hasUnescapedGlob('a\\*b')).toBe(false);
    expect(hasUnescapedGlob('src/*.ts')).toBe(true);
  });
});
