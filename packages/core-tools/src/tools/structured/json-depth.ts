import { invalidArgument } from '@toolsys/core-tool-registry';

/**
 * Deepest nesting of arrays and objects json_path and json_transform accept, in JSON text and in
 * structured arguments alike. Far beyond real documents; a value nested deeper would overflow the
 * stack of JSON.stringify, structured cloning or the query engine.
 */
export const MAX_JSON_DEPTH = 128;

/** Argument limits of the tools that take a whole JSON document. */
export const JSON_DOCUMENT_ARGUMENT_LIMITS = {
  maxCharacters: 5_065_536,
  maxEntries: 200_000,
  // The argument object itself is one level.
  maxDepth: MAX_JSON_DEPTH + 1,
} as const;

/**
 * Throws a non-retryable INVALID_ARGUMENT naming {@link MAX_JSON_DEPTH} when JSON text nests
 * deeper. One pass over the characters without recursion, before the text is parsed.
 */
export function assertJsonTextDepth(text: string, field: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw tooDeep(field);
    } else if (code === 0x5d || code === 0x7d) {
      depth -= 1;
    }
  }
}

/** The error for a document nested deeper than {@link MAX_JSON_DEPTH}. */
export function tooDeep(field: string) {
  return invalidArgument(
    field,
    `the document is nested more than ${MAX_JSON_DEPTH} levels deep (the depth limit)`,
    `Send a sub-document nested at most ${MAX_JSON_DEPTH} levels deep; do not retry the same input.`,
  );
}
