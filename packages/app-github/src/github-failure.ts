import {
  cancelledFailure,
  failureResult,
  ToolErrorCode,
  type ToolFailure,
} from '@toolsys/core-tool-registry';
import { cleanUntrustedLine, defuseMarkers } from '@toolsys/core-tool-registry/text';
import {
  GitHubRedirectError,
  GitHubResponseTooLargeError,
  GitHubStalledError,
} from './bounded-fetch.js';

/** What a failed request was about, so the message names it. */
export interface GitHubTarget {
  /** What was asked for, in words, e.g. `file src/a.ts in octo/hello (ref main)`. */
  readonly what: string;
  /** The repository, when the request was about one (`owner/repo`). */
  readonly repository?: string;
  /** Whether the request wrote; conflicts are explained for writes. */
  readonly isWrite?: boolean;
}

/** Everything {@link describeGitHubFailure} needs besides the error. */
export interface GitHubFailureContext {
  readonly target: GitHubTarget;
  /** Where the token came from (named in 401 errors; never its value). */
  readonly tokenSource: string | undefined;
  /** The API root, named when it cannot be reached. */
  readonly baseUrl: string;
  /** The call's signal: an aborted call ends as cancelled, not as a GitHub error. */
  readonly signal: AbortSignal;
  /** Removes the token from any text. */
  readonly redact: (text: string) => string;
  /** Current time in ms (rate-limit waits). */
  readonly now: () => number;
}

interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Record<string, unknown>; data?: unknown };
}

function isRequestError(error: unknown): error is RequestErrorLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { status?: unknown }).status === 'number' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/**
 * Turns anything an Octokit request threw into a failure the model can act on: 401 names the
 * token source and the fix, 403/404 say the token may lack access, primary and secondary rate
 * limits become RATE_LIMITED with the wait, 409/422 become INVALID_ARGUMENT with GitHub's reason,
 * 5xx and network failures become retryable EXECUTION_FAILED. The token never appears.
 */
export function describeGitHubFailure(error: unknown, context: GitHubFailureContext): ToolFailure {
  if (context.signal.aborted) return cancelledFailure(context.signal);
  const { target, redact } = context;
  const bounded = boundedFetchFailure(error, target);
  if (bounded) return bounded;
  if (!isRequestError(error)) {
    const reason = quote(redact(error instanceof Error ? error.message : String(error)), 300);
    return failureResult(
      ToolErrorCode.EXECUTION_FAILED,
      `Unexpected failure while handling ${target.what}: ${reason}`,
      {
        retryable: false,
        hint: 'Retry once with other arguments; if it fails again, continue without this tool.',
      },
    );
  }
  // Octokit reports a request that never got an answer (refused, DNS, reset) as a 500 without one.
  if (error.status === 500 && !error.response) {
    const reason = quote(redact(error.message), 300);
    return failureResult(
      ToolErrorCode.EXECUTION_FAILED,
      `Could not reach GitHub at ${context.baseUrl} for ${target.what}: ${reason}`,
      {
        hint: 'Retry once; if it fails again, GitHub is unreachable from here: continue without it.',
      },
    );
  }
  const headers = error.response?.headers ?? {};
  const apiMessage = redact(readApiMessage(error));
  const status = error.status;
  const limited = rateLimitFailure(status, headers, apiMessage, context);
  if (limited) return limited;
  switch (status) {
    case 401:
      return failureResult(
        ToolErrorCode.PERMISSION_DENIED,
        `GitHub rejected the token from ${context.tokenSource ?? 'the configured source'} (401 ${apiMessage}).`,
        {
          hint: 'The token is invalid or expired: the user must renew it (e.g. `gh auth refresh`, or a new token in that source) and restart. Do not retry.',
          details: { status, tokenSource: context.tokenSource },
        },
      );
    case 403: {
      const header = readHeader(headers, 'x-accepted-github-permissions');
      const needed = header === undefined ? undefined : quote(header, 200);
      const missing = needed ? ` GitHub needs the permission: ${needed}.` : '';
      return failureResult(
        ToolErrorCode.PERMISSION_DENIED,
        `GitHub refused ${target.what} (403 ${apiMessage}).${missing}`,
        {
          hint: `The token may be missing access to ${target.repository ?? 'this resource'}${needed ? ` (${needed})` : ''}. Do not retry; ask the user to grant it or use another repository.`,
          details: { status, ...(needed ? { acceptedPermissions: needed } : {}) },
        },
      );
    }
    case 404:
      return failureResult(ToolErrorCode.NOT_FOUND, `GitHub found no ${target.what} (404).`, {
        hint: `Check the owner, repository, path and ref (github_list_repos lists the repositories you can see). A private repository also answers 404 when the token is missing access to it.`,
        details: { status },
      });
    case 409:
    case 422: {
      const detail = readValidationErrors(error.response?.data).map(redact);
      const why = detail.length > 0 ? ` ${detail.join('; ')}` : '';
      return failureResult(
        ToolErrorCode.INVALID_ARGUMENT,
        `GitHub rejected ${target.what} (${status} ${apiMessage}).${why}`,
        {
          hint: target.isWrite
            ? 'Fix the arguments named above and retry; on a conflict, read the current state first.'
            : 'Fix the arguments named above and retry.',
          details: { status, ...(detail.length > 0 ? { errors: detail } : {}) },
        },
      );
    }
    default:
      if (status >= 500) {
        return failureResult(
          ToolErrorCode.EXECUTION_FAILED,
          `GitHub failed on ${target.what} (${status} ${apiMessage}).`,
          {
            hint: target.isWrite
              ? 'GitHub had a server error; check whether the change happened (read it back) before trying again.'
              : 'GitHub had a server error; retry once later.',
            retryable: !target.isWrite,
            details: { status },
          },
        );
      }
      return failureResult(
        ToolErrorCode.EXECUTION_FAILED,
        `GitHub answered ${status} to ${target.what}: ${apiMessage}`,
        { retryable: false, details: { status } },
      );
  }
}

function rateLimitFailure(
  status: number,
  headers: Record<string, unknown>,
  apiMessage: string,
  context: GitHubFailureContext,
): ToolFailure | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const remaining = readHeader(headers, 'x-ratelimit-remaining');
  const reset = Number(readHeader(headers, 'x-ratelimit-reset'));
  const retryAfter = Number(readHeader(headers, 'retry-after'));
  const secondary = /secondary rate limit/i.test(apiMessage);
  if (remaining === '0' && Number.isFinite(reset) && reset > 0) {
    const resetAt = new Date(reset * 1000);
    const waitMs = Math.max(0, reset * 1000 - context.now());
    const limitHeader = Number(readHeader(headers, 'x-ratelimit-limit'));
    const limit = Number.isSafeInteger(limitHeader) ? String(limitHeader) : undefined;
    const resourceHeader = readHeader(headers, 'x-ratelimit-resource');
    const resource = resourceHeader === undefined ? undefined : quote(resourceHeader, 50);
    return failureResult(
      ToolErrorCode.RATE_LIMITED,
      `GitHub's rate limit${resource ? ` for ${resource}` : ''} is used up (0 of ${limit ?? '?'} left); it resets at ${resetAt.toISOString()}.`,
      {
        retryAfterMs: waitMs,
        hint: `Wait until ${resetAt.toISOString()} before calling GitHub tools again, or continue without GitHub.`,
        details: { status, remaining: 0, resetAt: resetAt.toISOString(), limit, resource },
      },
    );
  }
  if (
    Number.isFinite(retryAfter) &&
    retryAfter >= 0 &&
    readHeader(headers, 'retry-after') !== undefined
  ) {
    return failureResult(
      ToolErrorCode.RATE_LIMITED,
      `GitHub's ${secondary ? 'secondary ' : ''}rate limit was hit (${status}); it asks to wait ${retryAfter} s.`,
      {
        retryAfterMs: retryAfter * 1000,
        hint: `Wait ${retryAfter} s, then make fewer, slower requests (one at a time).`,
        details: { status, retryAfterSeconds: retryAfter, secondary },
      },
    );
  }
  if (status === 429 || secondary || /rate limit/i.test(apiMessage)) {
    return failureResult(
      ToolErrorCode.RATE_LIMITED,
      `GitHub's ${secondary ? 'secondary ' : ''}rate limit was hit (${status} ${apiMessage}).`,
      {
        retryAfterMs: 60_000,
        hint: 'Wait at least a minute, then make fewer, slower requests (one at a time).',
        details: { status, secondary },
      },
    );
  }
  return undefined;
}

function readHeader(headers: Record<string, unknown>, name: string): string | undefined {
  const value = headers[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * Outside text quoted in an error message (GitHub's own words, headers, a redirect target): one
 * line, invisible characters removed, controls and line breaks escaped, markers defused, cut.
 */
function quote(text: string, maxLength: number): string {
  return defuseMarkers(cleanUntrustedLine(text, maxLength));
}

function readApiMessage(error: RequestErrorLike): string {
  const data = error.response?.data;
  if (typeof data === 'object' && data !== null) {
    const message = (data as { message?: unknown }).message;
    if (typeof message === 'string' && message.length > 0) return quote(message, 300);
  }
  return quote(error.message, 300);
}

/** The byte limit and the refused redirect, wherever Octokit wrapped them. */
function boundedFetchFailure(error: unknown, target: GitHubTarget): ToolFailure | undefined {
  const cause = findCause(error);
  if (cause instanceof GitHubResponseTooLargeError) {
    return failureResult(
      ToolErrorCode.EXECUTION_FAILED,
      `${cause.message} while handling ${target.what}; the limit protects this server's memory.`,
      {
        retryable: false,
        hint: 'Ask for less (a smaller perPage, a narrower query, another file). If every call fails like this, GitHub or a proxy in between answers wrongly: tell the user and continue without GitHub.',
        details: { maxResponseBytes: cause.maxBytes },
      },
    );
  }
  if (cause instanceof GitHubStalledError) {
    // One stalled repository (or a stalled proxy path) says nothing about the others: the
    // failure is scoped to its target, and not retried (another wait as long would follow).
    return failureResult(ToolErrorCode.TIMEOUT, `${cause.message}; ${target.what} was not read.`, {
      retryable: false,
      hint: `GitHub (or a proxy in between) stopped answering this request. Try again later, or continue without it; other calls${target.repository ? ` and repositories than ${target.repository}` : ''} are not affected.`,
      details: {
        targetScoped: true,
        idleTimeoutMs: cause.idleTimeoutMs,
        elapsedMs: Math.round(cause.elapsedMs),
      },
    });
  }
  if (cause instanceof GitHubRedirectError) {
    const location = cause.location === undefined ? '(no location)' : quote(cause.location, 300);
    return failureResult(
      ToolErrorCode.NOT_FOUND,
      `GitHub answered ${cause.status} (moved) for ${target.what}, pointing to ${location}. Redirects are not followed, so an answer never comes from another repository than the one asked for.`,
      {
        hint: 'The repository was probably renamed or transferred: find its current owner/name (github_list_repos, or ask the user) and call again with it; the allowed repositories are checked on that name.',
        details: { status: cause.status, location },
      },
    );
  }
  return undefined;
}

function findCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (
      current instanceof GitHubResponseTooLargeError ||
      current instanceof GitHubRedirectError ||
      current instanceof GitHubStalledError
    ) {
      return current;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function readValidationErrors(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const errors = (data as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors.slice(0, 5).map((entry) => {
    if (typeof entry === 'string') return quote(entry, 200);
    if (typeof entry !== 'object' || entry === null) return quote(String(entry), 200);
    const { field, code, message } = entry as {
      field?: unknown;
      code?: unknown;
      message?: unknown;
    };
    if (typeof message === 'string') return quote(message, 200);
    return quote(
      `${typeof field === 'string' ? field : 'a field'}: ${typeof code === 'string' ? code : 'invalid'}`,
      200,
    );
  });
}
