// How web_fetch shows one slice of a document: its own lines outside, the document's text between
// untrusted-content markers.
import { failureResult, successResult, ToolErrorCode } from '@toolsys/core-tool-registry';
import {
  CleaningTally,
  cleanUntrustedLine,
  escapeInvisible,
  markUntrusted,
} from '@toolsys/core-tool-registry/text';
import { MAX_HTML_DEPTH, MAX_HTML_ELEMENTS } from './html-to-markdown.js';
import { WEB_PAGE_NOTICE } from './shared.js';
import type { WebPageSlice } from './web-page-text.js';

/** What {@link pageDocument} shows: a converted page or a document as received, and the response. */
export interface PageInput {
  /** The converted page's slice; absent for a document shown as received. */
  page?: WebPageSlice;
  /** The slice of a document shown as received (raw, text, JSON …), and its whole length. */
  raw?: { text: string; totalLength: number };
  offset: number;
  url: string;
  status: number;
  contentType: string;
  bodyTruncated: boolean;
  bytes: number;
  maxResponseBytes: number;
}

/**
 * One slice of a document as the model reads it: the tool's own lines (URL, title, notes) outside,
 * the document's text between `<untrusted-web-page-content>` markers under their notice. A
 * converted page is already cleaned; a document shown as received keeps every character, hidden
 * ones shown as escapes (`\u202e`, `\x1b`), so forged lines and markers cannot pass as the tool's.
 */
export function pageDocument(input: PageInput) {
  const { page, offset } = input;
  const url = cleanUntrustedLine(input.url, 2_000);
  const slice = page?.text ?? input.raw?.text ?? '';
  const totalLength = page?.totalLength ?? input.raw?.totalLength ?? 0;
  if (offset > 0 && offset >= totalLength) {
    return failureResult(
      ToolErrorCode.INVALID_ARGUMENT,
      `offset: ${offset} is past the end of the document (${totalLength} characters).`,
      { field: 'offset', hint: 'Use an offset below the document length, or 0 to start over.' },
    );
  }
  const end = offset + slice.length;
  const lines = [`URL: ${url}`];
  if (page?.title) lines.push(`Title: ${page.title}`);
  // The document's text as the model reads it: between the markers, under their notice.
  let content = '';
  if (totalLength === 0) {
    lines.push(
      page
        ? `The page has no readable text (${input.bytes} bytes of HTML). Call web_fetch again with format="raw" to see what it holds.`
        : `The document is empty (${input.bytes} bytes).`,
    );
  } else {
    const removed = page ? describeRemoved(page) : '';
    const shown = page ? slice : escapeInvisible(slice, { keepNewlines: true });
    content = [
      WEB_PAGE_NOTICE,
      ...(removed ? [removed] : []),
      markUntrusted(shown, 'web-page'),
    ].join('\n');
    lines.push('', content);
  }
  const nextOffset = end < totalLength ? end : undefined;
  if (nextOffset !== undefined) {
    lines.push(
      '',
      `[Truncated: showing characters ${offset}-${end} of ${totalLength}. Call web_fetch again with offset=${end} for the rest.]`,
    );
  }
  if (page && page.elementsCut > 0) {
    lines.push(
      '',
      `[Cut: the page has more than ${MAX_HTML_ELEMENTS} elements; the last ${page.elementsCut} were not converted. Call web_fetch with format="raw" to read the HTML as received.]`,
    );
  }
  if (page && page.depthFlattened > 0) {
    lines.push(
      '',
      `[Markup nested deeper than ${MAX_HTML_DEPTH} levels was shown as plain text (${page.depthFlattened} elements).]`,
    );
  }
  if (input.bodyTruncated) {
    lines.push(
      '',
      `[The page is larger than ${input.maxResponseBytes} bytes; only its beginning was read.]`,
    );
  }
  const data: Record<string, unknown> = {
    url,
    status: input.status,
    contentType: input.contentType,
    offset,
    totalLength,
  };
  if (page?.title) data.title = page.title;
  if (nextOffset !== undefined) data.nextOffset = nextOffset;
  if (page && page.elementsCut > 0) data.elementsCut = page.elementsCut;
  if (page && page.depthFlattened > 0) data.depthFlattened = page.depthFlattened;
  // Also in the structured content: a client that gives the model that instead of the text still
  // gives it the page.
  data.content = content;
  return successResult(lines.join('\n'), { data });
}

/** The cleaner's sentence for what was removed from a page, or '' when nothing was. */
function describeRemoved(page: WebPageSlice): string {
  const tally = new CleaningTally();
  tally.invisibleRemoved = page.invisibleRemoved;
  tally.commentsRemoved = page.commentsRemoved;
  return tally.describe();
}
