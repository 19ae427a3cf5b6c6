// How much of a document a tool shows in one call when its structured content carries a copy.
import { MAX_RESULT_CHARS } from '@toolsys/core-tool-registry';

/**
 * Most characters (or bytes) of a document that read_file and web_fetch show in one call: their
 * text and the copy in their structured content share one result budget, and this leaves room for
 * escapes, line numbers and notes, so that the tool's own "continue from here" note is what a
 * long document gets instead of the budget's cut.
 */
export const MAX_SHOWN_WITH_COPY = Math.floor(MAX_RESULT_CHARS * 0.45);
