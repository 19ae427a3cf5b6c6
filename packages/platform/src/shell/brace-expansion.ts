/**
 * Bash brace expansion (`{a,b}`, `{1..5}`, nested, anywhere in a word) over word patterns, and the
 * pattern escapes it works with: quoted text is escaped so that expansion and globbing leave it alone.
 */

/** Most words one brace expansion may produce before the word counts as unknown. */
const MAX_BRACE_WORDS = 4_096;

/** Escapes the characters brace expansion and globbing act on, for quoted text. */
export function escapePattern(text: string): string {
  return text.replace(/[\\{},*?[\]~]/g, '\\$&');
}

/** Quote removal of a pattern: `\x` becomes `x`, an escaped newline disappears. */
export function removeEscapes(pattern: string): string {
  return pattern.replace(/\\(.|\n)/g, (_match, char: string) => (char === '\n' ? '' : char));
}

/** Whether a pattern holds a glob character (`*`, `?`, `[`) that is not escaped. */
export function hasUnescapedGlob(pattern: string): boolean {
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') index += 1;
    else if (char === '*' || char === '?' || char === '[') return true;
  }
  return false;
}

/** The index of the `}` closing the `{` at `open`, or -1; fills `commas` with top-level commas. */
function findBraceClose(pattern: string, open: number, commas: number[]): number {
  let depth = 0;
  for (let index = open; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') {
      index += 1;
    } else if (char === '{') {
      depth += 1;
    } else if (char === '}') {
      depth -= 1;
      if (depth === 0) return index;
    } else if (char === ',' && depth === 1) {
      commas.push(index);
    }
  }
  return -1;
}

const SEQUENCE = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/;

/** The words of a sequence expression (`1..5`, `a..e`, `0..10..2`), or undefined if it is not one. */
function expandSequence(body: string): string[] | null | undefined {
  const match = SEQUENCE.exec(body);
  if (match === null) return undefined;
  const [, from = '', to = '', stepText] = match;
  const numeric = /^-?\d+$/.test(from) && /^-?\d+$/.test(to);
  if (!numeric && (from.length !== 1 || to.length !== 1 || /\d/.test(from + to))) return undefined;
  const start = numeric ? Number(from) : from.charCodeAt(0);
  const end = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const count = Math.floor(Math.abs(end - start) / step) + 1;
  if (count > MAX_BRACE_WORDS) return null;
  const direction = end >= start ? 1 : -1;
  const words: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const value = start + direction * index * step;
    words.push(numeric ? String(value) : escapePattern(String.fromCharCode(value)));
  }
  return words;
}

/**
 * Bash brace expansion of one word pattern (escaped characters are literal): every `{a,b}` and
 * `{x..y}` anywhere in the word, nested or not. Null when the result would pass
 * {@link MAX_BRACE_WORDS} words (the word then counts as unknown).
 */
export function expandBraces(pattern: string): string[] | null {
  for (let open = 0; open < pattern.length; open += 1) {
    const char = pattern[open];
    if (char === '\\') {
      open += 1;
      continue;
    }
    if (char !== '{') continue;
    const commas: number[] = [];
    const close = findBraceClose(pattern, open, commas);
    if (close < 0) return [pattern];
    const body = pattern.slice(open + 1, close);
    let alternatives: string[] | null | undefined;
    if (commas.length > 0) {
      const cuts = [open, ...commas, close];
      alternatives = cuts.slice(1).map((cut, index) => pattern.slice((cuts[index] ?? 0) + 1, cut));
    } else {
      alternatives = expandSequence(body);
    }
    if (alternatives === null) return null;
    if (alternatives === undefined) continue;
    const prefix = pattern.slice(0, open);
    const suffixes = expandBraces(pattern.slice(close + 1));
    if (suffixes === null) return null;
    const words: string[] = [];
    for (const alternative of alternatives) {
      const inner = expandBraces(alternative);
      if (inner === null) return null;
      for (const middle of inner) {
        for (const suffix of suffixes) {
          words.push(prefix + middle + suffix);
          if (words.length > MAX_BRACE_WORDS) return null;
        }
      }
    }
    return words;
  }
  return [pattern];
}
