// What the network tools share: their settings, the URL field, the request time limit, the
// failure for an HTTP error status and the test for a textual body.
import {
  failureResult,
  type ToolContext,
  ToolError,
  ToolErrorCode,
  type ToolFailure,
} from '@toolsys/core-tool-registry';
import { untrustedMarkers } from '@toolsys/core-tool-registry/text';
import type { GuardedResponse, SsrfGuard } from '@toolsys/platform';
import { z } from 'zod';
import type { CpuToolPool } from '../../cpu/cpu-tool-pool.js';
import type { SearchBackend } from './search-backend.js';

/** The network tools' options, resolved once for the whole group. */
export interface NetworkSettings {
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

/** The `url` argument of every network tool. */
export const urlField = z.string().min(1).max(8_000).describe('http(s) URL.');

/** The notice above text a server wrote, shown between untrusted-content markers. */
export const WEB_PAGE_NOTICE = untrustedMarkers('web-page').notice;

/** Runs `work` with the request time limit; a timeout becomes TIMEOUT, a cancel propagates. */
export async function withRequestTimeout<T>(
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

/** The failure for an HTTP error status, by class: NOT_FOUND, PERMISSION_DENIED, RATE_LIMITED … */
export function httpStatusFailure(response: GuardedResponse, toolId: string): ToolFailure {
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

/** Whether a body is text worth showing, by its content type or, without one, by its bytes. */
export function isTextual(contentType: string, buffer: Buffer): boolean {
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
