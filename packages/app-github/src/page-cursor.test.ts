import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, fingerprintQuery, nextPageFromLink } from './page-cursor.js';

describe('page cursors', () => {
  it('round-trips a page for the same query', () => {
    const query = fingerprintQuery({ b: 2, a: [1] });
    expect(query).toBe(fingerprintQuery({ a: [1], b: 2 }));
    expect(decodeCursor(encodeCursor({ page: 7, query }), query)).toEqual({ page: 7, query });
  });

  it('refuses a cursor of another query, and text that is not a cursor', () => {
    const cursor = encodeCursor({ page: 2, query: fingerprintQuery({ a: 1 }) });
    expect(decodeCursor(cursor, fingerprintQuery({ a: 2 }))).toHaveProperty('problem');
    expect(decodeCursor('bm90IGEgY3Vyc29y', fingerprintQuery({ a: 1 }))).toEqual({
      problem: 'is not a cursor returned by this tool',
    });
  });
});

describe('nextPageFromLink', () => {
  it('reads the next page of a GitHub Link header', () => {
    const link =
      '<https://api.github.com/user/repos?per_page=2&page=3>; rel="next", <https://api.github.com/user/repos?per_page=2&page=9>; rel="last"';
    expect(nextPageFromLink(link)).toBe(3);
  });

  it('is undefined on the last page or without a header', () => {
    expect(nextPageFromLink('<https://api.github.com/x?page=1>; rel="first"')).toBeUndefined();
    expect(nextPageFromLink(undefined)).toBeUndefined();
  });
});
