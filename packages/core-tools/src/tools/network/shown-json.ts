import { escapeInvisible } from '@toolsys/core-tool-registry/text';

/** Deepest nesting of a parsed JSON body that is kept; deeper parts are replaced by a note. */
export const MAX_SHOWN_JSON_DEPTH = 64;

/**
 * A JSON body from a server as the model may read it in structured data: every string, keys
 * included, with its control, bidi and invisible characters shown as escapes (as in the text
 * shown beside it), line breaks and tabs kept. Numbers, booleans and null stay. Parts nested
 * deeper than {@link MAX_SHOWN_JSON_DEPTH} levels are replaced by a note, so a hostile body
 * cannot exhaust the stack. Linear in the size of the value.
 */
export function shownJson(value: unknown): unknown {
  const shown = (text: string) => escapeInvisible(text, { keepNewlines: true });
  const visit = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') return shown(item);
    if (item === null || typeof item !== 'object') return item;
    if (depth >= MAX_SHOWN_JSON_DEPTH) {
      return `[nested deeper than ${MAX_SHOWN_JSON_DEPTH} levels: omitted]`;
    }
    if (Array.isArray(item)) return item.map((entry) => visit(entry, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(item)) copy[shown(key)] = visit(entry, depth + 1);
    return copy;
  };
  return visit(value, 0);
}
