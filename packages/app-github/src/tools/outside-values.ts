import { type CleaningTally, defuseMarkers } from '@toolsys/core-tool-registry/text';

// Values from GitHub's answers as the tools show them: never trusted to have the type or shape
// the API documents.

/**
 * An outside value (a name, path, URL, login, sha …) as one cleaned line: invisible characters
 * removed and counted, line breaks and controls escaped, forged markers defused, cut at `max`.
 * Anything that is not a string (a hostile API may send an object for a name) becomes its text.
 */
export function outsideLine(tally: CleaningTally, value: unknown, max = 300): string {
  const text =
    typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
  return defuseMarkers(tally.cleanLine(text, max));
}

/** A count from GitHub, or 0 when the answer holds something else. */
export function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** A git object sha: 40 hex digits (SHA-1) or 64 (SHA-256). */
export const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

/** A git object sha from GitHub, or `(invalid sha)` when the answer holds anything else. */
export function shaOf(value: unknown): string {
  return typeof value === 'string' && SHA.test(value) ? value : '(invalid sha)';
}
