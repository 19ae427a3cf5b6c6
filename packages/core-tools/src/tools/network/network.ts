import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  CleaningTally,
  cleanUntrustedLine,
  defineTool,
  escapeInvisible,
  failureResult,
  markUntrusted,
  RunPolicies,
  successResult,
  type ToolContext,
  ToolError,
  ToolErrorCode,
  type ToolFailure,
  ToolHints,
  ToolSchema,
  untrustedMarkers,
  withSecretScrubbing,
} from '@toolsys/core-tool-registry';
import {
  type GuardedResponse,
  guardedRequest,
  type HostResolver,
  readBody,
  resolveWorkspacePath,
  SsrfGuard,
  TargetExistsError,
  withWorkspacePartFile,
} from '@toolsys/platform';
import { z } from 'zod';
import { CpuToolPool } from '../../cpu/cpu-tool-pool.js';
import { MAX_HTML_DEPTH, MAX_HTML_ELEMENTS } from './html-to-markdown.js';
import { createSearxngBackend, type SearchBackend } from './search-backend.js';
import { shownJson } from './shown-json.js';
import {
  convertWebPage,
  decodeText,
  INLINE_WEB_PAGE_BYTES,
  WEB_PAGE_TASK_ID,
  type WebPageRequest,
  type WebPageSlice,
} from './web-page-text.js';

/** Options for {@link createNetworkTools}. */
export interface NetworkToolsOptions {
  /** Directory downloads are written into; `download_file` paths are confined to it. */
  workspaceRoot: string;
  /**
   * Non-public destinations the tools may reach. `false` (default) refuses loopback, private,
   * link-local and cloud-metadata addresses; `true` allows all but cloud metadata; a list allows
   * exactly the host names, IPs and CIDR ranges it names. See {@link SsrfGuard}.
   */
  allowPrivateNetwork?: boolean | readonly string[];
  /** The engine behind `web_search`; wins over `searxngUrl`. */
  searchBackend?: SearchBackend;
  /** Base URL of a SearXNG instance for `web_search` (its JSON format must be enabled). */
  searxngUrl?: string;
  /** User-Agent header sent by every request; `Toolsys/0.1 (+web tools)` by default. */
  userAgent?: string;
  /** Largest response body read by `web_fetch` and `http_request`, in bytes; 5 MiB by default. */
  maxResponseBytes?: number;
  /** Largest file `download_file` writes, in bytes; 1 GiB by default. */
  maxDownloadBytes?: number;
  /**
   * Time limit of one request in ms (for `download_file`: the longest pause between two chunks);
   * 30 s by default. The run policy's timeout still bounds the whole call.
   */
  requestTimeoutMs?: number;
  /** Resolves host names for the SSRF check; `node:dns` by default (tests inject answers). */
  resolveHost?: HostResolver;
  /**
   * Worker threads that convert HTML pages to Markdown, so no page can block the event loop (pass
   * the pool of the CPU-bound tools, and close it on shutdown). When absent, one is made on the
   * first page larger than 16 KiB; its idle workers never keep the process alive.
   */
  cpuPool?: CpuToolPool;
}

const DEFAULT_USER_AGENT = 'Toolsys/0.1 (+web tools)';
const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const MAX_HTTP_BODY_CHARS = 50_000;
const PROGRESS_STEP_BYTES = 256 * 1024;
/** Headers whose values never appear in results, data or messages. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]);

interface NetworkSettings {
  readonly workspaceRoot: string;
  readonly guard: SsrfGuard;
  readonly userAgent: string;
  readonly maxResponseBytes: number;
  readonly maxDownloadBytes: number;
  readonly requestTimeoutMs: number;
  readonly searchBackend: SearchBackend | undefined;
  /** The pool converting pages, made on first use when none was given. */
  readonly cpuPool: () => CpuToolPool;
}

/** `web_fetch`, `web_search`, `http_request` and `download_file`, behind one SSRF guard. */
export function createNetworkTools(options: NetworkToolsOptions): AnyToolDefinition[] {
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  let cpuPool = options.cpuPool;
  const settings: NetworkSettings = {
    cpuPool: () => {
      cpuPool ??= new CpuToolPool();
      return cpuPool;
    },
    workspaceRoot: options.workspaceRoot,
    guard: new SsrfGuard({
      allowPrivateNetwork: options.allowPrivateNetwork ?? false,
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    }),
    userAgent,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxDownloadBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    searchBackend:
      options.searchBackend ??
      (options.searxngUrl
        ? createSearxngBackend({ url: options.searxngUrl, userAgent })
        : undefined),
  };
  // Pages and responses can carry credentials under any name: shown only scrubbed.
  return [
    createWebFetchTool(settings),
    createWebSearchTool(settings),
    createHttpRequestTool(settings),
    createDownloadFileTool(settings),
  ].map((tool) => withSecretScrubbing(tool));
}

const urlField = z
  .string()
  .min(1)
  .max(8_000)
  .describe('Absolute http:// or https:// URL. Private and internal addresses are refused.');

// ---------------------------------------------------------------------------------------------
// web_fetch

const webFetchSchema = ToolSchema.object({
  url: urlField,
  format: z
    .enum(['markdown', 'raw'])
    .default('markdown')
    .describe(
      'markdown (default): the readable part of an HTML page as Markdown; raw: the body as received.',
    ),
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Character offset to start from; use the nextOffset of a previous call to page on.'),
  max_length: z
    .number()
    .int()
    .min(500)
    .max(100_000)
    .default(20_000)
    .describe('Most characters returned in this call (500-100000).'),
});

function createWebFetchTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'web_fetch',
    description:
      'Fetches a web page and returns its readable content as Markdown (navigation, scripts and ads removed), or the raw text of JSON, XML and text responses. Long documents are paged: call again with offset=nextOffset. Use http_request for APIs that need methods, headers or bodies, and download_file to save binary files.',
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

const WEB_PAGE_NOTICE = untrustedMarkers('web-page').notice;

interface PageInput {
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
function pageDocument(input: PageInput) {
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
  if (totalLength === 0) {
    lines.push(
      page
        ? `The page has no readable text (${input.bytes} bytes of HTML). Call web_fetch again with format="raw" to see what it holds.`
        : `The document is empty (${input.bytes} bytes).`,
    );
  } else {
    lines.push('', WEB_PAGE_NOTICE);
    const removed = page ? describeRemoved(page) : '';
    if (removed) lines.push(removed);
    const shown = page ? slice : escapeInvisible(slice, { keepNewlines: true });
    lines.push(markUntrusted(shown, 'web-page'));
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
  return successResult(lines.join('\n'), { data });
}

/** The cleaner's sentence for what was removed from a page, or '' when nothing was. */
function describeRemoved(page: WebPageSlice): string {
  const tally = new CleaningTally();
  tally.invisibleRemoved = page.invisibleRemoved;
  tally.commentsRemoved = page.commentsRemoved;
  return tally.describe();
}

// ---------------------------------------------------------------------------------------------
// web_search

const webSearchSchema = ToolSchema.object({
  query: z.string().trim().min(1).max(500).describe('What to search the web for.'),
  limit: z.number().int().min(1).max(20).default(5).describe('Most results to return (1-20).'),
});

function createWebSearchTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'web_search',
    description:
      "Searches the web through the deployment's search backend (SearXNG by default) and returns titles, URLs and snippets. Follow up with web_fetch to read a result. Says plainly when no backend is configured.",
    inputSchema: webSearchSchema,
    outputSchema: ToolSchema.object({
      backend: z.string(),
      results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
    }),
    metadata: {
      category: 'network',
      risk: 'LOW',
      tags: ['web', 'search'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.network,
    async execute({ query, limit }, context) {
      const backend = settings.searchBackend;
      if (!backend) {
        return failureResult(
          ToolErrorCode.UNSUPPORTED,
          'web_search is not available: no search backend is configured in this deployment.',
          {
            hint: 'Use web_fetch on a URL you know instead. An operator can enable search by configuring a SearXNG URL (the searxngUrl option of the network tools).',
          },
        );
      }
      return withRequestTimeout(settings, context, async (signal) => {
        const results = await backend.search(query, { limit, signal });
        if (results.length === 0) {
          return successResult(`No results for "${query}".`, {
            data: { backend: backend.name, results: [] },
          });
        }
        const text = results
          .map((hit, index) => `${index + 1}. ${hit.title}\n   ${hit.url}\n   ${hit.snippet}`)
          .join('\n');
        return successResult(text, { data: { backend: backend.name, results: [...results] } });
      });
    },
  });
}

// ---------------------------------------------------------------------------------------------
// http_request

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const httpRequestSchema = ToolSchema.object({
  url: urlField,
  method: z.enum(HTTP_METHODS).default('GET').describe('HTTP method.'),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'Request headers, e.g. {"Accept": "application/json"}. Authorization and cookies are sent but never shown back or traced.',
    ),
  json: z
    .unknown()
    .optional()
    .describe('A JSON body; sets Content-Type: application/json. Do not combine with body.'),
  body: z
    .string()
    .max(1_000_000)
    .optional()
    .describe('A text body, sent as given. Do not combine with json.'),
  follow_redirects: z
    .boolean()
    .default(true)
    .describe('Follow up to 5 redirects (each target is checked again).'),
});

function createHttpRequestTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'http_request',
    description:
      'Sends an HTTP request (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS) with headers and a JSON or text body, and returns the status, headers and body (text up to 50 000 characters, shown between untrusted-content markers; JSON also parsed into data). Any status is returned, not treated as an error. Use web_fetch to read web pages and download_file to save files.',
    inputSchema: httpRequestSchema,
    outputSchema: ToolSchema.object({
      status: z.number(),
      statusText: z.string(),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.string().optional(),
      json: z.unknown().optional(),
      truncated: z.boolean(),
    }),
    metadata: {
      category: 'network',
      risk: 'MEDIUM',
      tags: ['web', 'api'],
      annotations: { ...ToolHints.destructive, openWorldHint: true, sensitiveAction: true },
    },
    runPolicy: RunPolicies.network,
    async execute({ url, method, headers, json, body, follow_redirects }, context) {
      if (json !== undefined && body !== undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'body: give either json or body, not both.',
          { field: 'body' },
        );
      }
      const requestHeaders: Record<string, string> = { 'user-agent': settings.userAgent };
      for (const [name, value] of Object.entries(headers ?? {})) {
        if (!HEADER_NAME.test(name)) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `headers.${name}: not a valid header name.`,
            { field: `headers.${name}`, hint: 'Header names are letters, digits and - only.' },
          );
        }
        if (/[\r\n\0]/.test(value)) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `headers.${name}: header values may not contain line breaks or NUL.`,
            { field: `headers.${name}` },
          );
        }
        requestHeaders[name.toLowerCase()] = value;
      }
      let payload: string | undefined = body;
      if (json !== undefined) {
        payload = JSON.stringify(json);
        requestHeaders['content-type'] ??= 'application/json';
      }
      if (payload !== undefined && (method === 'GET' || method === 'HEAD')) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `body: a ${method} request cannot carry a body.`,
          {
            field: json !== undefined ? 'json' : 'body',
            hint: 'Use POST, PUT or PATCH to send a body.',
          },
        );
      }
      return withRequestTimeout(settings, context, async (signal) => {
        const response = await guardedRequest({
          url,
          guard: settings.guard,
          method,
          headers: requestHeaders,
          ...(payload !== undefined ? { body: payload } : {}),
          signal,
          maxRedirects: follow_redirects ? 5 : 0,
        });
        const { buffer, truncated } = await readBody(response, settings.maxResponseBytes, signal);
        const contentType = String(response.headers['content-type'] ?? '');
        const shownHeaders = redactHeaders(response.headers);
        const data: Record<string, unknown> = {
          status: response.status,
          statusText: response.statusText,
          url: response.url,
          headers: shownHeaders,
          truncated,
        };
        // Everything the server wrote (headers, body) is shown between untrusted-content markers,
        // hidden characters as escapes, so a forged `Error:` or `Next:` line cannot pass as ours.
        const statusText = cleanUntrustedLine(response.statusText, 100);
        const outside: string[] = [];
        for (const [name, value] of Object.entries(shownHeaders)) {
          outside.push(`${name}: ${escapeInvisible(value)}`);
        }
        const notes: string[] = [];
        if (buffer.length > 0) {
          outside.push('');
          if (isTextual(contentType, buffer)) {
            const text = decodeText(buffer, contentType);
            const shown = escapeInvisible(text.slice(0, MAX_HTTP_BODY_CHARS), {
              keepNewlines: true,
            });
            data.body = shown;
            if (/\bjson\b/i.test(contentType)) {
              try {
                data.json = shownJson(JSON.parse(text));
              } catch {
                // Not valid JSON despite the content type: the text is still returned.
              }
            }
            outside.push(shown);
            if (text.length > MAX_HTTP_BODY_CHARS) {
              notes.push(`[Body cut at ${MAX_HTTP_BODY_CHARS} of ${text.length} characters.]`);
            }
          } else {
            notes.push(
              `[Binary body of ${buffer.length} bytes not shown; use download_file to save it.]`,
            );
          }
          if (truncated) {
            notes.push(
              `[Only the first ${settings.maxResponseBytes} bytes of the body were read.]`,
            );
          }
        }
        data.statusText = statusText;
        const lines = [
          `HTTP ${response.status} ${statusText}`.trim(),
          WEB_PAGE_NOTICE,
          markUntrusted(outside.join('\n'), 'web-page'),
          ...notes,
        ];
        return successResult(lines.join('\n'), { data });
      });
    },
  });
}

function redactHeaders(headers: GuardedResponse['headers']): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    shown[name] = SECRET_HEADERS.has(name)
      ? '[redacted]'
      : Array.isArray(value)
        ? value.join(', ')
        : value;
  }
  return shown;
}

// ---------------------------------------------------------------------------------------------
// download_file

const CHECKSUM = /^(sha256|sha512|sha1|md5):([0-9a-fA-F]+)$/;
const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha512: 128, sha1: 40, md5: 32 };

const downloadSchema = ToolSchema.object({
  url: urlField,
  path: z
    .string()
    .min(1)
    .max(4_096)
    .describe('Destination, relative to the workspace root (folders are created).'),
  checksum: z
    .string()
    .regex(CHECKSUM, 'expected "<algorithm>:<hex digest>" with sha256, sha512, sha1 or md5')
    .optional()
    .describe('Expected digest, e.g. "sha256:9f86d0…"; the file is kept only when it matches.'),
  overwrite: z
    .boolean()
    .default(false)
    .describe('Replace an existing file at path; otherwise an existing file is an error.'),
  resume: z
    .boolean()
    .default(true)
    .describe(
      'Continue an interrupted download of the same URL to the same path with a Range request.',
    ),
});

function createDownloadFileTool(settings: NetworkSettings): AnyToolDefinition {
  return defineTool({
    id: 'download_file',
    description:
      'Downloads a URL into a file in the workspace, streaming with progress. An interrupted download is resumed with a Range request when the server supports it (call again with the same arguments). Optionally verifies a checksum. Use web_fetch to read a page instead of saving it.',
    inputSchema: downloadSchema,
    outputSchema: ToolSchema.object({
      path: z.string(),
      bytes: z.number(),
      resumedFrom: z.number(),
      sha256: z.string(),
      contentType: z.string(),
    }),
    metadata: {
      category: 'network',
      risk: 'MEDIUM',
      tags: ['web', 'file'],
      annotations: { ...ToolHints.mutating, idempotentHint: true, openWorldHint: true },
    },
    runPolicy: RunPolicies.network,
    async execute({ url, path, checksum, overwrite, resume }, context) {
      const [, algorithm = 'sha256', digest = ''] = CHECKSUM.exec(checksum ?? '') ?? [];
      if (checksum && digest.length !== DIGEST_LENGTHS[algorithm]) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `checksum: a ${algorithm} digest has ${DIGEST_LENGTHS[algorithm]} hex digits, got ${digest.length}.`,
          { field: 'checksum' },
        );
      }
      const target = await resolveWorkspacePath(settings.workspaceRoot, path, {
        field: 'path',
        allowRoot: false,
      });
      const existing = await lstat(target.absolute).catch(() => undefined);
      if (existing?.isDirectory()) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, `path: "${path}" is a directory.`, {
          field: 'path',
          hint: 'Give a file name inside the directory.',
        });
      }
      if (existing && !overwrite) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, `path: "${path}" already exists.`, {
          field: 'path',
          hint: 'Choose another path, or pass overwrite=true to replace it.',
        });
      }
      // The part file is private (a hidden name of its own, never the user's `<name>.part`) and
      // held open in its folder from the first byte to the commit, so a folder swapped for a link
      // meanwhile cannot send the download outside the workspace. Without overwrite the commit
      // never replaces: a file saved at `path` during the download is kept.
      const partKey = createHash('sha256')
        .update(`${url}\0${target.relative}`)
        .digest('hex')
        .slice(0, 16);
      return withWorkspacePartFile(
        target,
        { key: `download-${partKey}`, keepExisting: resume, replace: overwrite },
        async (part) => {
          const downloaded = await downloadToPartial(settings, context, url, part.path, path);
          if (!downloaded.ok) {
            if (downloaded.discard) await part.discard();
            return downloaded.failure;
          }
          const sha256 = await hashFile(part.path, 'sha256');
          if (checksum) {
            const [, algorithm = 'sha256', expected = ''] = CHECKSUM.exec(checksum) ?? [];
            const actual = algorithm === 'sha256' ? sha256 : await hashFile(part.path, algorithm);
            if (actual !== expected.toLowerCase()) {
              await part.discard();
              return failureResult(
                ToolErrorCode.EXECUTION_FAILED,
                `Checksum mismatch for ${path}: expected ${algorithm}:${expected.toLowerCase()}, got ${algorithm}:${actual}. The download was discarded.`,
                {
                  retryable: false,
                  hint: 'Check the checksum and the URL; the server sent different content.',
                  details: { expected: expected.toLowerCase(), actual, algorithm },
                },
              );
            }
          }
          try {
            await part.commit();
          } catch (error) {
            if (!(error instanceof TargetExistsError)) throw error;
            await part.discard();
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `path: "${path}" already exists: it was created while the file downloaded, and was kept. The download was discarded.`,
              {
                field: 'path',
                hint: 'Choose another path, or pass overwrite=true to replace it.',
              },
            );
          }
          const { bytes, resumedFrom, contentType } = downloaded;
          const resumedText = resumedFrom > 0 ? `, resumed from byte ${resumedFrom}` : '';
          return successResult(
            `Downloaded ${bytes} bytes to ${path}${resumedText} (sha256 ${sha256}).`,
            { data: { path, bytes, resumedFrom, sha256, contentType } },
          );
        },
      );
    },
  });
}

type DownloadOutcome =
  | { ok: true; bytes: number; resumedFrom: number; contentType: string }
  /** `discard`: the part file holds nothing worth resuming from. */
  | { ok: false; failure: ToolFailure; discard?: boolean };

async function downloadToPartial(
  settings: NetworkSettings,
  context: ToolContext,
  url: string,
  partial: string,
  path: string,
): Promise<DownloadOutcome> {
  let startAt = (await stat(partial).catch(() => undefined))?.size ?? 0;
  const idle = new AbortController();
  const signal = AbortSignal.any([context.signal, idle.signal]);
  let idleTimer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(
      () =>
        idle.abort(
          new ToolError(
            ToolErrorCode.TIMEOUT,
            `The download of ${path} stalled for ${settings.requestTimeoutMs} ms.`,
            { hint: 'Call download_file again with the same arguments to resume.' },
          ),
        ),
      settings.requestTimeoutMs,
    );
  };
  try {
    touch();
    let response = await requestRange(settings, url, startAt, signal);
    if (response.status === 416 && startAt > 0) {
      const total = parseContentRangeTotal(response.headers['content-range']);
      response.body.resume();
      if (total === startAt) {
        return {
          ok: true,
          bytes: startAt,
          resumedFrom: startAt,
          contentType: String(response.headers['content-type'] ?? ''),
        };
      }
      // Start over: the write stream below truncates the part ('w' when not appending).
      startAt = 0;
      response = await requestRange(settings, url, 0, signal);
    }
    if (response.status >= 400) {
      response.body.resume();
      return { ok: false, failure: httpStatusFailure(response, 'download_file') };
    }
    if (response.status !== 200 && response.status !== 206) {
      response.body.resume();
      return {
        ok: false,
        failure: failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `The server answered HTTP ${response.status} instead of the file.`,
          { retryable: false, hint: 'Check the URL.' },
        ),
      };
    }
    const appending = response.status === 206 && startAt > 0;
    const resumedFrom = appending ? startAt : 0;
    const length = Number(response.headers['content-length']);
    const total = Number.isFinite(length) && length >= 0 ? resumedFrom + length : undefined;
    if (total !== undefined && total > settings.maxDownloadBytes) {
      response.body.destroy();
      return {
        ok: false,
        failure: failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `The file is ${total} bytes, more than this deployment's download limit of ${settings.maxDownloadBytes} bytes.`,
          { retryable: false, hint: 'Download a smaller file.' },
        ),
      };
    }
    const output = createWriteStream(partial, { flags: appending ? 'a' : 'w' });
    let bytes = resumedFrom;
    let reported = bytes;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        touch();
        bytes += chunk.length;
        if (bytes > settings.maxDownloadBytes) {
          response.body.destroy();
          output.destroy();
          return {
            ok: false,
            discard: true,
            failure: failureResult(
              ToolErrorCode.EXECUTION_FAILED,
              `The file is larger than this deployment's download limit of ${settings.maxDownloadBytes} bytes; the partial file was discarded.`,
              { retryable: false, hint: 'Download a smaller file.' },
            ),
          };
        }
        if (!output.write(chunk)) await once(output, 'drain');
        if (bytes - reported >= PROGRESS_STEP_BYTES) {
          reported = bytes;
          context.emit({
            type: 'progress',
            progress: bytes,
            ...(total !== undefined ? { total } : {}),
            message: `${bytes} bytes of ${path}`,
          });
        }
      }
    } catch (error) {
      await closeStream(output);
      if (context.signal.aborted) throw context.signal.reason ?? error;
      if (idle.signal.aborted) throw idle.signal.reason;
      return {
        ok: false,
        failure: failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `The download of ${path} was interrupted after ${bytes} bytes (${(error as NodeJS.ErrnoException).code ?? 'connection lost'}).`,
          {
            hint: 'Call download_file again with the same arguments: it resumes where it stopped.',
            details: { bytes },
          },
        ),
      };
    }
    await closeStream(output);
    if (total !== undefined && bytes < total) {
      return {
        ok: false,
        failure: failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `The download of ${path} ended early: ${bytes} of ${total} bytes.`,
          {
            hint: 'Call download_file again with the same arguments: it resumes where it stopped.',
            details: { bytes, total },
          },
        ),
      };
    }
    context.emit({ type: 'progress', progress: bytes, total: bytes, message: `done: ${path}` });
    return {
      ok: true,
      bytes,
      resumedFrom,
      contentType: String(response.headers['content-type'] ?? ''),
    };
  } finally {
    clearTimeout(idleTimer);
  }
}

function requestRange(
  settings: NetworkSettings,
  url: string,
  startAt: number,
  signal: AbortSignal,
): Promise<GuardedResponse> {
  return guardedRequest({
    url,
    guard: settings.guard,
    signal,
    headers: {
      'user-agent': settings.userAgent,
      'accept-encoding': 'identity',
      ...(startAt > 0 ? { range: `bytes=${startAt}-` } : {}),
    },
  });
}

function parseContentRangeTotal(header: string | undefined): number | undefined {
  const match = /\/(\d+)\s*$/.exec(header ?? '');
  return match ? Number(match[1]) : undefined;
}

function closeStream(stream: ReturnType<typeof createWriteStream>): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    if (stream.closed) {
      resolvePromise();
      return;
    }
    stream.once('error', reject);
    stream.end(() => resolvePromise());
  });
}

async function hashFile(file: string, algorithm: string): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

// ---------------------------------------------------------------------------------------------
// shared helpers

/** Runs `work` with the request time limit; a timeout becomes TIMEOUT, a cancel propagates. */
async function withRequestTimeout<T>(
  settings: NetworkSettings,
  context: ToolContext,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () =>
      timeout.abort(
        new ToolError(
          ToolErrorCode.TIMEOUT,
          `The request did not finish within ${settings.requestTimeoutMs} ms.`,
          { hint: 'The server is slow; retry once later or ask for less data.' },
        ),
      ),
    settings.requestTimeoutMs,
  );
  try {
    return await work(AbortSignal.any([context.signal, timeout.signal]));
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason ?? error;
    if (timeout.signal.aborted) throw timeout.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function httpStatusFailure(response: GuardedResponse, toolId: string): ToolFailure {
  const { status, statusText, url } = response;
  const details = { status, url };
  const text = `${url} answered HTTP ${status}${statusText ? ` ${statusText}` : ''}.`;
  if (status === 404 || status === 410) {
    return failureResult(ToolErrorCode.NOT_FOUND, text, {
      hint: 'Check the URL; search for the right page with web_search.',
      details,
    });
  }
  if (status === 401 || status === 403) {
    return failureResult(ToolErrorCode.PERMISSION_DENIED, text, {
      hint: `The server refused access. Use http_request with the needed headers, or another source; do not retry ${toolId} as is.`,
      details,
    });
  }
  if (status === 429) {
    const retryAfter = Number(response.headers['retry-after']);
    return failureResult(ToolErrorCode.RATE_LIMITED, text, {
      ...(Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {}),
      details,
    });
  }
  return failureResult(ToolErrorCode.EXECUTION_FAILED, text, {
    retryable: status >= 500,
    hint: status >= 500 ? 'The server failed; retry once later.' : 'Check the URL and the request.',
    details,
  });
}

function isHtml(contentType: string, body: Buffer): boolean {
  if (/html/i.test(contentType)) return true;
  if (contentType) return false;
  return /^\s*(<!doctype html|<html)/i.test(body.subarray(0, 1024).toString('latin1'));
}

function isTextual(contentType: string, buffer: Buffer): boolean {
  const type = contentType.toLowerCase();
  if (
    type.startsWith('text/') ||
    /json|xml|javascript|ecmascript|yaml|csv|x-www-form-urlencoded|graphql/.test(type)
  ) {
    return true;
  }
  if (type && !type.startsWith('application/octet-stream')) return false;
  return !buffer.subarray(0, 4096).includes(0);
}
