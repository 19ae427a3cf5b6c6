import { countTokens, takeTokens } from '@toolsys/platform';

export { countTokens, takeTokens };

/** Most characters of lines whose counts are kept; past it the memo starts again. */
const MEMO_CHARACTERS = 4_000_000;
const memo = new Map<string, number>();
let memoCharacters = 0;

/**
 * Real tokens (o200k) one line of a result costs: its own tokens plus one for the line break.
 * Counted line by line, the sum stays at or above the count of the joined text (a line's leading
 * spaces join its line break in the joined text), so a page filled to a budget this way holds
 * it. Counts are remembered per line text (bounded), so the pages of one tree, read again with
 * a cursor, are not counted twice.
 */
export function lineTokens(line: string): number {
  const known = memo.get(line);
  if (known !== undefined) return known;
  const tokens = countTokens(line) + 1;
  if (memoCharacters + line.length > MEMO_CHARACTERS) {
    memo.clear();
    memoCharacters = 0;
  }
  memo.set(line, tokens);
  memoCharacters += line.length;
  return tokens;
}
