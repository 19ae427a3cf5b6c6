// web_fetch: a web page as Markdown (converted in the CPU pool when large) or a document as received.
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  type ToolContext,
  ToolErrorCode,
  type ToolFailure,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { type GuardedResponse, guardedRequest, readBody } from '@toolsys/platform';
import { z } from 'zod';
import type { CpuToolPool } from '../../cpu/cpu-tool-pool.js';
import { MAX_SHOWN_WITH_COPY } from '../shown-with-copy.js';
import { pageDocument } from './page-document.js';
import {
  httpStatusFailure,
  isTextual,
  type NetworkSettings,
  urlField,
  withRequestTimeout,
} from './shared.js';
import {
  convertWebPage,
  decodeText,
  INLINE_WEB_PAGE_BYTES,
  WEB_PAGE_TASK_ID,
  type WebPageRequest,
  type WebPageSlice,
} from './web-page-text.js';

const webFetchSchema = ToolSchema.object({
  url: urlField,
  format: z.enum(['markdown', 'raw']).default('markdown').describe('Format.'),
  offset: z.number().int().min(0).default(0).describe('Start offset (nextOffset).'),
  max_length: z
    .number()
    .int()
    .min(500)
    .max(MAX_SHOWN_WITH_COPY)
    .default(20_000)
    .describe('Most characters.'),
});

/** The `web_fetch` tool. */
export function createWebFetchTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'web_fetch',
    description: 'Fetches a web page as Markdown (or raw), paged with offset.',
    inputSchema: webFetchSchema,
    outputSchema: ToolSchema.object({
      url: z.string(),
      status: z.number(),
      contentType: z.string(),
      title: z.string().optional(),
      offset: z.number(),
      totalLength: z.number(),
      nextOffset: z.number().optional(),
      elementsCut: z.number().optional(),
      depthFlattened: z.number().optional(),
      content: z.string(),
    }),
    metadata: {
      category: 'network',
      risk: 'LOW',
      tags: ['web', 'read'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.network,
    async execute({ url, format, offset, max_length }, context) {
      return withRequestTimeout(settings, context, async (signal) => {
        const response = await guardedRequest({
          url,
          guard: settings.guard,
          signal,
          headers: {
            'user-agent': settings.userAgent,
            accept: 'text/html,application/xhtml+xml,application/json,text/plain;q=0.9,*/*;q=0.5',
            'accept-encoding': 'gzip, deflate, br',
          },
        });
        if (response.status >= 400) {
          response.body.resume();
          return httpStatusFailure(response, 'web_fetch');
        }
        const contentType = String(response.headers['content-type'] ?? '');
        const { buffer, truncated } = await readBody(response, settings.maxResponseBytes, signal);
        if (!isTextual(contentType, buffer)) {
          return failureResult(
            ToolErrorCode.UNSUPPORTED,
            `${response.url} is not a text document (content type "${contentType || 'unknown'}").`,
            { hint: 'Save it with download_file instead.', details: { contentType } },
          );
        }
        if (format === 'markdown' && isHtml(contentType, buffer)) {
          const request = {
            body: buffer,
            contentType,
            url: response.url,
            offset,
            maxLength: max_length,
          };
          const page = await convertPage(settings, request, context, signal);
          if ('ok' in page) return page;
          return pageDocument({ ...pageInput(response, buffer, truncated), page, offset });
        }
        const text = decodeText(buffer, contentType);
        const end = Math.min(text.length, offset + max_length);
        return pageDocument({
          ...pageInput(response, buffer, truncated),
          offset,
          raw: { text: text.slice(offset, end), totalLength: text.length },
        });
      });
    },
  });

  function pageInput(response: GuardedResponse, buffer: Buffer, truncated: boolean) {
    return {
      url: response.url,
      status: response.status,
      contentType: String(response.headers['content-type'] ?? ''),
      bodyTruncated: truncated,
      bytes: buffer.length,
      maxResponseBytes: settings.maxResponseBytes,
    };
  }
}

/**
 * Converts a page on the calling thread when it is small, else in the CPU tool pool (a worker
 * stopped when the request's time runs out), so no page can block the event loop.
 */
async function convertPage(
  settings: NetworkSettings,
  request: WebPageRequest,
  context: ToolContext,
  signal: AbortSignal,
): Promise<WebPageSlice | ToolFailure> {
  if (request.body.length <= INLINE_WEB_PAGE_BYTES) return convertWebPage(request);
  let outcome: Awaited<ReturnType<CpuToolPool['run']>>;
  try {
    outcome = await settings
      .cpuPool()
      .run(WEB_PAGE_TASK_ID, { ...request }, { ...context, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    return failureResult(
      ToolErrorCode.EXECUTION_FAILED,
      `${request.url} could not be converted to Markdown: ${(error as Error).message}.`,
      {
        retryable: false,
        hint: 'Call web_fetch again with format="raw" to read the page as received.',
      },
    );
  }
  if (typeof outcome === 'string' || !outcome.ok) {
    throw new Error('the web page task returned no page');
  }
  return { ...(outcome.data as Omit<WebPageSlice, 'text'>), text: outcome.content };
}

function isHtml(contentType: string, body: Buffer): boolean {
  if (/html/i.test(contentType)) return true;
  if (contentType) return false;
  return /^\s*(<!doctype html|<html)/i.test(body.subarray(0, 1024).toString('latin1'));
}
