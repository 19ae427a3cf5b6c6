import { failureResult, ToolErrorCode, type ToolFailure } from '@toolsys/core-tool-registry';
import { decodeCursor } from '../page-cursor.js';

/** Resolves the page a listing starts at, or a failure naming the cursor. */
export function startPage(cursor: string | undefined, query: string): number | ToolFailure {
  if (cursor === undefined) return 1;
  const decoded = decodeCursor(cursor, query);
  if ('problem' in decoded) {
    return failureResult(ToolErrorCode.INVALID_ARGUMENT, `cursor ${decoded.problem}.`, {
      field: 'cursor',
      hint: 'Pass nextCursor exactly as the previous page returned it, with the same other arguments, or omit cursor to start over.',
    });
  }
  return decoded.page;
}

/** The last line of a listing: where the next page is, or that this was the last. */
export function pageFooter(next: string | undefined): string {
  return next === undefined
    ? 'This is the last page.'
    : `More results: call again with cursor "${next}".`;
}
