import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { SsrfGuard } from './ssrf-guard.js';

/** Options for {@link guardedRequest}. */
export interface GuardedRequestOptions {
  /** The URL to request (http or https). */
  url: string;
  /** The SSRF guard checking the first URL, every redirect and every resolved address. */
  guard: SsrfGuard;
  /** HTTP method; GET by default. */
  method?: string;
  /** Request headers (names are case-insensitive). */
  headers?: Readonly<Record<string, string>>;
  /** Request body; dropped when a redirect turns the request into a GET. */
  body?: string | Buffer;
  /** Cancels the request and the response stream. */
  signal?: AbortSignal;
  /** Redirects followed before giving up; 5 by default, 0 returns the redirect itself. */
  maxRedirects?: number;
  /** Argument name reported when the URL is refused; `url` by default. */
  field?: string;
}

/** A response whose body has not been read yet. */
export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  readonly url: string;
  /** The HTTP status code of the final answer. */
  readonly status: number;
  /** The status line's reason phrase (`OK`, `Not Found` …), as the server sent it. */
  readonly statusText: string;
  /** The headers of the final answer, names in lower case. */
  readonly headers: IncomingHttpHeaders;
  /** The raw body stream (not decompressed). */
  readonly body: IncomingMessage;
  /** URLs that redirected, in order. */
  readonly redirects: readonly string[];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/**
 * The caller headers that may follow a redirect to another origin. Any other header may carry a
 * credential (`X-Api-Key`, `X-Auth-Token`, a vendor's own name), so an allow-list is the only safe
 * rule: everything not named here stays with the origin it was meant for.
 */
const CROSS_ORIGIN_SAFE_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'content-length',
  'pragma',
  'user-agent',
]);

/**
 * Sends an HTTP request through an {@link SsrfGuard}: the URL, each redirect target and the
 * address each socket connects to are checked before any byte is sent. Redirects are followed by
 * hand; when a redirect leaves the origin only the caller headers of a small safe list (Accept,
 * Accept-Language, User-Agent, Content-Type …) go with it, never a credential.
 */
export async function guardedRequest(options: GuardedRequestOptions): Promise<GuardedResponse> {
  const { guard, signal, field = 'url' } = options;
  const maxRedirects = options.maxRedirects ?? 5;
  let url = parseUrl(options.url, field);
  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  let headers = { ...(options.headers ?? {}) };
  const redirects: string[] = [];
  for (;;) {
    guard.checkUrl(url, field);
    const response = await sendOnce(url, method, headers, body, guard, signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(status) || !location || redirects.length >= maxRedirects) {
      if (REDIRECT_STATUSES.has(status) && location && maxRedirects > 0) {
        response.resume();
        throw new ToolError(
          ToolErrorCode.EXECUTION_FAILED,
          `Too many redirects (more than ${maxRedirects}) starting at ${options.url}.`,
          { retryable: false, hint: 'Request the final URL directly.' },
        );
      }
      return {
        url: url.href,
        status,
        statusText: response.statusMessage ?? '',
        headers: response.headers,
        body: response,
        redirects,
      };
    }
    response.resume();
    const next = parseUrl(new URL(location, url).href, field);
    redirects.push(url.href);
    if (next.origin !== url.origin) {
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) =>
          CROSS_ORIGIN_SAFE_HEADERS.has(name.toLowerCase()),
        ),
      );
    }
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers = Object.fromEntries(
        Object.entries(headers).filter(
          ([name]) => !['content-type', 'content-length'].includes(name.toLowerCase()),
        ),
      );
    }
    url = next;
  }
}

function parseUrl(text: string, field: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new ToolError(ToolErrorCode.INVALID_ARGUMENT, `${field}: "${text}" is not a valid URL`, {
      field,
      hint: 'Give an absolute URL such as https://example.com/page.',
    });
  }
}

function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  guard: SsrfGuard,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolvePromise, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, {
      method,
      headers,
      lookup: guard.lookup,
      // No shared keep-alive pool: a pooled socket would skip the lookup, and with it the check.
      agent: false,
      ...(signal ? { signal } : {}),
    });
    request.once('response', resolvePromise);
    request.once('error', (error) => reject(translateError(error, url, signal)));
    if (body !== undefined && method !== 'GET' && method !== 'HEAD') request.end(body);
    else request.end();
  });
}

function translateError(error: Error, url: URL, signal: AbortSignal | undefined): Error {
  if (error instanceof ToolError || error.name === 'ToolError') return error;
  if (signal?.aborted) return (signal.reason as Error) ?? error;
  const code = (error as NodeJS.ErrnoException).code ?? error.message;
  return new ToolError(
    ToolErrorCode.EXECUTION_FAILED,
    `Request to ${url.origin} failed: ${code}.`,
    {
      hint: 'Check the URL and that the server is reachable, then retry once.',
      details: { errorCode: code },
      cause: error,
    },
  );
}

/** What {@link readBody} collected. */
export interface ReadBodyResult {
  /** The (decompressed) bytes, at most `maxBytes`. */
  readonly buffer: Buffer;
  /** Whether the body was longer than `maxBytes` and was cut. */
  readonly truncated: boolean;
}

/**
 * Reads a response body, decompressing gzip, deflate and br, and stops after `maxBytes`
 * decompressed bytes (so a small compressed bomb cannot exhaust memory).
 */
export async function readBody(
  response: GuardedResponse,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<ReadBodyResult> {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  let stream: NodeJS.ReadableStream = response.body;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.body.pipe(createGunzip());
  else if (encoding === 'deflate') stream = response.body.pipe(createInflate());
  else if (encoding === 'br') stream = response.body.pipe(createBrotliDecompress());
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const remaining = maxBytes - size;
      if (chunk.length > remaining) {
        chunks.push(chunk.subarray(0, remaining));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    throw new ToolError(
      ToolErrorCode.EXECUTION_FAILED,
      `Reading the response from ${new URL(response.url).origin} failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
      { hint: 'The connection broke or the body is corrupt; retry once.', cause: error },
    );
  } finally {
    if (truncated || signal?.aborted) response.body.destroy();
  }
  return { buffer: Buffer.concat(chunks, size), truncated };
}
