import {
  type AnyToolDefinition,
  defineTool,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { CleaningTally, cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import { convertHtmlToMarkdown } from './html-to-markdown.js';

/** The id of the CPU pool task that converts a web page (never registered as a tool). */
export const WEB_PAGE_TASK_ID = 'web_fetch.html_to_markdown';

/**
 * Pages up to this many bytes are converted on the calling thread: a few milliseconds, less than
 * the hop to a worker. Larger pages go to the CPU tool pool.
 */
export const INLINE_WEB_PAGE_BYTES = 16 * 1024;

/** Which page of a converted web page to return. */
export interface WebPageRequest {
  /** The page as received. */
  readonly body: Uint8Array;
  /** Its Content-Type header ('' when none), for the character set. */
  readonly contentType: string;
  /** The page's final URL, to make links absolute. */
  readonly url: string;
  /** First character of the Markdown to return. */
  readonly offset: number;
  /** Most characters to return. */
  readonly maxLength: number;
}

/** One slice of a web page as the model is shown it: converted, then cleaned by the shared cleaner. */
export interface WebPageSlice {
  /** The page's title as one cleaned line (may be empty). */
  readonly title: string;
  /** The requested characters of the cleaned Markdown. */
  readonly text: string;
  /** Characters of the whole cleaned Markdown. */
  readonly totalLength: number;
  /** Elements past the conversion cap that were not converted. */
  readonly elementsCut: number;
  /** Elements nested past the depth cap whose markup was flattened to text. */
  readonly depthFlattened: number;
  /** Invisible and control characters removed from the whole page. */
  readonly invisibleRemoved: number;
  /** Hidden comments removed from the whole page. */
  readonly commentsRemoved: number;
}

/**
 * Decodes a page (see {@link decodeText}), converts it to Markdown (see
 * {@link convertHtmlToMarkdown}) and cleans it as every outside text is cleaned
 * (`cleanUntrustedText`: control, bidi, zero-width and tag characters, hidden comments), so the
 * model never reads what a person looking at the page cannot see; returns the slice asked for.
 * Everything here is CPU-bound: it runs in the CPU tool pool for any page but a small one, and only
 * the slice crosses back.
 */
export function convertWebPage(request: WebPageRequest): WebPageSlice {
  const html = decodeText(request.body, request.contentType);
  const converted = convertHtmlToMarkdown(html, request.url);
  const tally = new CleaningTally();
  const markdown = tally.clean(converted.markdown);
  const title = cleanUntrustedLine(tally.clean(converted.title), 300);
  return {
    title,
    text: markdown.slice(request.offset, request.offset + request.maxLength),
    totalLength: markdown.length,
    elementsCut: converted.elementsCut,
    depthFlattened: converted.depthFlattened,
    invisibleRemoved: tally.invisibleRemoved,
    commentsRemoved: tally.commentsRemoved,
  };
}

/**
 * {@link convertWebPage} as a task of the CPU tool pool: the slice is the result's content, the
 * rest its data. Never registered; `web_fetch` sends it the pages to convert.
 */
export function createWebPageTask(): AnyToolDefinition {
  return defineTool({
    id: WEB_PAGE_TASK_ID,
    description:
      'Converts a fetched HTML page to cleaned Markdown (an internal task of web_fetch).',
    inputSchema: ToolSchema.object({
      body: z.instanceof(Uint8Array),
      contentType: z.string(),
      url: z.string(),
      offset: z.number(),
      maxLength: z.number(),
    }),
    metadata: { category: 'network', risk: 'LOW', annotations: ToolHints.readOnly },
    execute(request) {
      const { text, ...rest } = convertWebPage(request);
      return successResult(text, { data: { ...rest } });
    },
  });
}

/**
 * Decodes a text body: the charset of the Content-Type header wins; an HTML page may name its
 * encoding in a `<meta>` near the top instead; UTF-8 otherwise.
 */
export function decodeText(buffer: Uint8Array, contentType: string): string {
  const charset =
    /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(
      Buffer.from(buffer.buffer, buffer.byteOffset, Math.min(buffer.length, 2048)).toString(
        'latin1',
      ),
    )?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(buffer);
  } catch {
    return new TextDecoder('utf-8').decode(buffer);
  }
}
