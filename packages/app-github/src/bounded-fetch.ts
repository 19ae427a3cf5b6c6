/**
 * A `fetch` for Octokit that reads every answer within a byte limit and never follows redirects,
 * so a GitHub API (a GitHub Enterprise Server, a proxy) can neither exhaust the memory of the
 * process with an endless or inflating body, nor lead a call to another repository than the one
 * the scope allowed.
 */

/** Thrown (and reported to the model) when an answer is larger than its limit; nothing of it is used. */
export class GitHubResponseTooLargeError extends Error {
  override readonly name = 'GitHubResponseTooLargeError';
  /** The limit that was passed, in bytes. */
  readonly maxBytes: number;
  /** The method and path of the request (no host, no query). */
  readonly request: string;

  constructor(request: string, maxBytes: number) {
    super(
      `GitHub's answer to ${request} was larger than ${maxBytes.toLocaleString('en-US')} bytes, so reading stopped`,
    );
    this.maxBytes = maxBytes;
    this.request = request;
  }
}

/** Thrown (and reported to the model) for a 3xx answer other than 304: redirects are not followed. */
export class GitHubRedirectError extends Error {
  override readonly name = 'GitHubRedirectError';
  /** The redirect status (301, 302, 307, 308 …). */
  readonly status: number;
  /** The `Location` header as GitHub sent it (untrusted), or undefined. */
  readonly location: string | undefined;
  /** The method and path of the request (no host, no query). */
  readonly request: string;

  constructor(request: string, status: number, location: string | undefined) {
    super(`GitHub answered ${status} to ${request}; redirects are not followed`);
    this.status = status;
    this.location = location;
    this.request = request;
  }
}

/**
 * Thrown (and reported to the model) when GitHub sent nothing for too long: no answer, or an
 * answer that stopped in the middle (headers and `[`, then silence). The connection is closed.
 */
export class GitHubStalledError extends Error {
  override readonly name = 'GitHubStalledError';
  /** The idle limit that passed, in ms. */
  readonly idleTimeoutMs: number;
  /** Time from sending the request to giving up, in ms. */
  readonly elapsedMs: number;
  /** The method and path of the request (no host, no query). */
  readonly request: string;

  constructor(request: string, idleTimeoutMs: number, elapsedMs: number) {
    super(
      `GitHub sent nothing for ${formatSeconds(idleTimeoutMs)} while answering ${request}, so the request was stopped after ${formatSeconds(elapsedMs)}`,
    );
    this.idleTimeoutMs = idleTimeoutMs;
    this.elapsedMs = elapsedMs;
    this.request = request;
  }
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Options for {@link createBoundedFetch}. */
export interface BoundedFetchOptions {
  /** Most bytes of one answer's body, after decompression. */
  readonly maxBytes: number;
  /**
   * Longest wait for the answer's headers or for the next bytes of its body, in ms; past it the
   * request is aborted with {@link GitHubStalledError}. Default 20,000.
   */
  readonly idleTimeoutMs?: number;
  /** The fetch underneath. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
}

/** Statuses whose answers carry no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` that reads the whole body before returning, at most `maxBytes` of it (counted after
 * `content-encoding` is undone, so a compressed bomb stops at the same limit), and throws
 * {@link GitHubResponseTooLargeError} past it, closing the connection. A declared
 * `content-length` over the limit is refused before reading. Redirects are not followed: a 3xx
 * answer other than 304 throws {@link GitHubRedirectError} naming where it pointed.
 */
export function createBoundedFetch(options: BoundedFetchOptions): typeof fetch {
  const { maxBytes } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const underlying = options.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const request = describeRequest(input, init);
    const idle = new IdleWatch(idleTimeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, idle.signal]) : idle.signal;
    try {
      const response = await underlying(input, { ...init, redirect: 'manual', signal });
      idle.touch();
      if (response.status >= 300 && response.status < 400 && response.status !== 304) {
        await discard(response);
        throw new GitHubRedirectError(
          request,
          response.status,
          response.headers.get('location') ?? undefined,
        );
      }
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await discard(response);
        throw new GitHubResponseTooLargeError(request, maxBytes);
      }
      const body = await readWithin(response, maxBytes, request, idle);
      const bounded = new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
      Object.defineProperty(bounded, 'url', { value: response.url });
      return bounded;
    } catch (error) {
      // Whatever the abort surfaced as (an AbortError, a TypeError of the body stream), a stall
      // is reported as one.
      if (idle.stalled) throw new GitHubStalledError(request, idleTimeoutMs, idle.elapsedMs());
      throw error;
    } finally {
      idle.stop();
    }
  };
}

/** Default of {@link BoundedFetchOptions.idleTimeoutMs}. */
export const DEFAULT_IDLE_TIMEOUT_MS = 20_000;

/** Aborts its signal when no progress was reported for `idleTimeoutMs`. */
class IdleWatch {
  readonly #controller = new AbortController();
  readonly #idleTimeoutMs: number;
  readonly #started = performance.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  stalled = false;

  constructor(idleTimeoutMs: number) {
    this.#idleTimeoutMs = idleTimeoutMs;
    this.touch();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Progress: the wait starts again. */
  touch(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.stalled = true;
      this.#controller.abort(new Error('stalled'));
    }, this.#idleTimeoutMs);
    this.#timer.unref?.();
  }

  elapsedMs(): number {
    return performance.now() - this.#started;
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

async function readWithin(
  response: Response,
  maxBytes: number,
  request: string,
  idle: IdleWatch,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    idle.touch();
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new GitHubResponseTooLargeError(request, maxBytes);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

function describeRequest(
  input: Parameters<typeof fetch>[0],
  init: RequestInit | undefined,
): string {
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  let path = href;
  try {
    path = new URL(href).pathname;
  } catch {
    // Keep the text as given.
  }
  return `${method} ${path}`;
}
