import { describe, expect, it } from 'vitest';
import { buildFtsQuery } from './build-fts-query.js';
import { MemoryStoreError } from './memory-store-error.js';

describe('buildFtsQuery', () => {
  it('quotes each word of plain text so punctuation is never syntax', () => {
    expect(buildFtsQuery(' Bob\'s "NEAR" (AND) café ')).toBe('"Bob" "s" "NEAR" "AND" "café"');
  });

  it('joins words with OR for match "any" and keeps a trailing star as a prefix', () => {
    expect(buildFtsQuery('deploy* key', { match: 'any' })).toBe('"deploy"* OR "key"');
  });

  it('passes FTS5 syntax through unchanged', () => {
    expect(buildFtsQuery(' "a b" OR c* ', { syntax: 'fts5' })).toBe('"a b" OR c*');
  });

  it('refuses text without words and too many words', () => {
    expect(() => buildFtsQuery('?!')).toThrow(MemoryStoreError);
    expect(() => buildFtsQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toThrow(
      'query: has 40 words; at most 32 are searched',
    );
  });
});
