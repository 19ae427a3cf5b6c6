/**
 * Text a person cannot see on a page (off-screen, transparent, zero-size, the colour of its
 * background, clipped away) still reaches the accessibility tree. The snapshot flags it as
 * `[hidden: …]`, as it removes invisible characters, so instructions a page hides from its reader
 * never read as ordinary page text.
 */

import { FIND_HIDDEN_TEXTS_SOURCE } from './hidden-text-script.js';

/** Most text nodes the page-side check looks at; past it, the rest of a page is not checked. */
export const MAX_CHECKED_TEXT_NODES = 50_000;
/** Longest the page-side check runs per snapshot, in ms; past it, the rest is not checked. */
export const MAX_CHECK_MS = 2_000;
/** Most characters of hidden text kept per page (the rest is not flagged). */
export const MAX_HIDDEN_CHARACTERS = 1_000_000;

/** What the page-side check found: texts no person can see, and texts some person can see. */
export interface HiddenTextReport {
  /** Whitespace-collapsed texts of text nodes a person cannot see. */
  readonly hidden: readonly string[];
  /** Whether the page had more text nodes than were checked. */
  readonly truncated: boolean;
}

/** The page-side check, called with its limits: an expression for `page.evaluate`. */
export function hiddenTextsExpression(limits: {
  readonly maxNodes: number;
  readonly maxCharacters: number;
  readonly maxMs: number;
}): string {
  return `(${FIND_HIDDEN_TEXTS_SOURCE})(${JSON.stringify(limits)})`;
}

/** Flags hidden page text inside texts of a snapshot. */
export type HiddenTextMarker = (text: string) => string;

/** At most this many hidden texts are looked for inside longer texts (exact matches: all). */
const MAX_SUBSTRING_SEARCHES = 200;

/**
 * Builds the marker of a page's hidden texts (already cleaned as page text is): a text equal to
 * a hidden text is shown as `[hidden: text]`; a text that holds one (a button whose name joins a
 * visible and a hidden part) has that part shown so.
 */
export function hiddenTextMarker(hiddenTexts: readonly string[]): HiddenTextMarker | undefined {
  const exact = new Set(hiddenTexts.filter((text) => text.length >= 2));
  if (exact.size === 0) return undefined;
  const parts = [...exact]
    .filter((text) => text.length >= 4)
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_SUBSTRING_SEARCHES);
  return (text) => {
    if (exact.has(text)) return flag(text);
    let marked = text;
    for (const part of parts) {
      if (part.length >= marked.length || !marked.includes(part)) continue;
      marked = marked.split(part).join(flag(part));
    }
    return marked;
  };
}

function flag(text: string): string {
  return `[hidden: ${text}]`;
}
