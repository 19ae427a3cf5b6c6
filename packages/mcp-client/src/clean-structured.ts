import { CleaningTally, defuseMarkers } from '@toolsys/core-tool-registry/text';
import { stripTerminalControls } from './terminal-text.js';

/** Deepest nesting of a remote structured value that is kept; deeper parts are replaced. */
export const MAX_STRUCTURED_DEPTH = 64;

/** A remote structured value with every string cleaned, and what the cleaning removed. */
export interface CleanedStructured {
  readonly value: unknown;
  /** A sentence naming what was removed (see `CleaningTally.describe`), or ''. */
  readonly removed: string;
}

/**
 * A remote server's `structuredContent` as the model may read it: every string, keys included,
 * cleaned like remote text (terminal escapes, control, bidi, invisible and tag characters and
 * hidden comments removed; untrusted-content markers defused). Numbers, booleans and null stay.
 * Parts nested deeper than {@link MAX_STRUCTURED_DEPTH} levels are replaced by a note, so a
 * hostile value cannot exhaust the stack. Linear in the size of the value.
 */
export function cleanRemoteStructured(value: unknown): CleanedStructured {
  const tally = new CleaningTally();
  const cleanString = (text: string) => defuseMarkers(tally.clean(stripTerminalControls(text)));
  const visit = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') return cleanString(item);
    if (item === null || typeof item !== 'object') return item;
    if (depth >= MAX_STRUCTURED_DEPTH) {
      return `[nested deeper than ${MAX_STRUCTURED_DEPTH} levels: omitted]`;
    }
    if (Array.isArray(item)) return item.map((entry) => visit(entry, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(item)) {
      copy[cleanString(key)] = visit(entry, depth + 1);
    }
    return copy;
  };
  const cleaned = visit(value, 0);
  return { value: cleaned, removed: tally.describe() };
}
