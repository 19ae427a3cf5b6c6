import { MemoryStoreError } from './memory-store-error.js';

/** How a search text is read. */
export interface FtsQueryOptions {
  /**
   * `plain` (default): words only; punctuation is ignored and no text can be a syntax error. A word
   * ending in `*` matches as a prefix. `fts5`: the text is an FTS5 query (`"a phrase"`, `OR`,
   * `NOT`, `NEAR(a b, 5)`, `prefix*`) and a syntax error is reported as INVALID_QUERY.
   */
  readonly syntax?: 'plain' | 'fts5';
  /** In plain syntax: `all` words must occur (default) or `any` of them. */
  readonly match?: 'all' | 'any';
}

const WORD = /[\p{L}\p{N}]+\*?/gu;
const MAX_WORDS = 32;

/** Turns a search text into an FTS5 MATCH expression; plain text can never be a syntax error. */
export function buildFtsQuery(text: string, options: FtsQueryOptions = {}): string {
  const trimmed = text.trim();
  if (options.syntax === 'fts5') {
    if (trimmed === '') {
      throw new MemoryStoreError('INVALID_QUERY', 'query: is empty', { field: 'query' });
    }
    return trimmed;
  }
  const words = trimmed.match(WORD) ?? [];
  if (words.length === 0) {
    throw new MemoryStoreError(
      'INVALID_QUERY',
      'query: has no words to search for (letters or digits)',
      { field: 'query' },
    );
  }
  if (words.length > MAX_WORDS) {
    throw new MemoryStoreError(
      'INVALID_QUERY',
      `query: has ${words.length} words; at most ${MAX_WORDS} are searched`,
      { field: 'query' },
    );
  }
  const terms = words.map((word) => (word.endsWith('*') ? `"${word.slice(0, -1)}"*` : `"${word}"`));
  return terms.join(options.match === 'any' ? ' OR ' : ' ');
}
