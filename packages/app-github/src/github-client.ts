import { createBoundedFetch } from './bounded-fetch.js';
import { type CachedResponse, EtagCache } from './etag-cache.js';
import type { ResolvedGitHubToken } from './github-token.js';
import { createThrottledOctokit, type GitHubOctokit } from './octokit-loader.js';

export type { GitHubOctokit } from './octokit-loader.js';

/** Options for {@link GitHubClient}. */
export interface GitHubClientOptions {
  /**
   * Gives the token on first use (so building tools never runs a token command). A rejection
   * ends calls with UNSUPPORTED and its message, which must not contain the token.
   */
  token: () => Promise<ResolvedGitHubToken>;
  /** REST API root. Default `https://api.github.com`; GitHub Enterprise Server: `https://HOST/api/v3`. */
  baseUrl?: string;
  /** Most GET responses kept for conditional requests. Default 100. */
  cacheEntries?: number;
  /** Responses larger than this (by `content-length`) are not cached. Default 512 KiB. */
  maxCachedBytes?: number;
  /** Retries of a request that hit a secondary rate limit. Default 2. */
  secondaryLimitRetries?: number;
  /** Longest `retry-after` (seconds) waited for a secondary-limit retry; longer fails at once. Default 30. */
  secondaryLimitMaxWaitSeconds?: number;
  /** Receives Octokit's warnings and errors with the token removed. Default: dropped. */
  log?: (level: 'warn' | 'error', message: string) => void;
  /** Passed to the throttling plugin; tests use a small value to shorten retry waits. Default 1000. */
  retryAfterBaseMs?: number;
  /**
   * Most bytes of one answer's body (after decompression); a larger answer ends the call with an
   * error before it is parsed. A request may set its own limit with `request.maxResponseBytes`
   * (file reads do). Default 10 MiB.
   */
  maxResponseBytes?: number;
  /**
   * Longest wait for an answer's headers, or for the next bytes of its body, in ms: a GitHub (or
   * proxy) that stops sending ends the call with a TIMEOUT stating the time spent. Default 20,000.
   */
  idleTimeoutMs?: number;
  /** The fetch underneath the byte limit. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/** Counters of what the client did, for tests and diagnostics. */
export interface GitHubClientStats {
  /** Requests sent to GitHub (each retry counts). */
  requests: number;
  /** Conditional GETs answered 304 and served from the cache. */
  notModified: number;
  /** Retries after a secondary rate limit. */
  secondaryLimitRetries: number;
}

const DEFAULT_BASE_URL = 'https://api.github.com';
/** Generous for any listing GitHub pages (100 issues with long bodies), far from what hurts. */
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * One authenticated GitHub REST client shared by the tools: resolves the token lazily, sends
 * conditional requests with an ETag cache, retries secondary rate limits within bounds (never the
 * primary limit), reads every answer within a byte limit without following redirects (see
 * {@link createBoundedFetch}), and knows how to remove the token from any text.
 */
export class GitHubClient {
  /** Counters since creation. */
  readonly stats: GitHubClientStats = { requests: 0, notModified: 0, secondaryLimitRetries: 0 };
  /** The REST API root in use. */
  readonly baseUrl: string;
  readonly #options: GitHubClientOptions;
  readonly #cache: EtagCache;
  #octokit: Promise<GitHubOctokit> | undefined;
  #token: ResolvedGitHubToken | undefined;

  constructor(options: GitHubClientOptions) {
    this.#options = options;
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.#cache = new EtagCache(options.cacheEntries ?? 100);
  }

  /** Where the token came from, once it was resolved. */
  get tokenSource(): ResolvedGitHubToken['source'] | undefined {
    return this.#token?.source;
  }

  /**
   * The Octokit instance, built on first call and then shared by every call of this client: the
   * token is resolved and Octokit imported then (a failed lookup or import is retried next time;
   * an import failure rejects with an `OctokitLoadError`).
   */
  octokit(): Promise<GitHubOctokit> {
    if (this.#octokit === undefined) {
      this.#octokit = this.#create().catch((error: unknown) => {
        this.#octokit = undefined;
        throw error;
      });
    }
    return this.#octokit;
  }

  /** Replaces every occurrence of the token in a text with `[redacted]`. */
  redact(text: string): string {
    const token = this.#token?.token;
    return token ? text.split(token).join('[redacted]') : text;
  }

  /** Drops cached responses; the client stays usable. */
  dispose(): void {
    this.#cache.clear();
  }

  async #create(): Promise<GitHubOctokit> {
    const token = await this.#options.token();
    this.#token = token;
    const log = this.#options.log;
    const emit = (level: 'warn' | 'error') => (message: string) => {
      log?.(level, this.redact(String(message)));
    };
    const retries = this.#options.secondaryLimitRetries ?? 2;
    const maxWait = this.#options.secondaryLimitMaxWaitSeconds ?? 30;
    const octokit = await createThrottledOctokit({
      auth: token.token,
      baseUrl: this.baseUrl,
      userAgent: 'toolsys-app-github',
      log: { debug: () => {}, info: () => {}, warn: emit('warn'), error: emit('error') },
      throttle: {
        retryAfterBaseValue: this.#options.retryAfterBaseMs ?? 1_000,
        // The primary limit is surfaced to the model as RATE_LIMITED with its reset time.
        onRateLimit: () => false,
        onSecondaryRateLimit: (
          retryAfter: number,
          _options: unknown,
          _octokit: unknown,
          count: number,
        ) => {
          if (count >= retries || retryAfter > maxWait) return false;
          this.stats.secondaryLimitRetries += 1;
          return true;
        },
      },
    });
    this.#installConditionalRequests(octokit);
    return octokit;
  }

  #installConditionalRequests(octokit: GitHubOctokit): void {
    const maxCachedBytes = this.#options.maxCachedBytes ?? 512 * 1024;
    const defaultLimit = this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const underlying = this.#options.fetch;
    const idleTimeoutMs = this.#options.idleTimeoutMs;
    octokit.hook.wrap('request', async (request, options) => {
      this.stats.requests += 1;
      const asked = Number(options.request?.maxResponseBytes);
      const maxBytes = Number.isSafeInteger(asked) && asked > 0 ? asked : defaultLimit;
      options.request = {
        ...options.request,
        fetch: createBoundedFetch({
          maxBytes,
          ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
          ...(underlying ? { fetch: underlying } : {}),
        }),
        redirect: 'manual',
      };
      const method = String(options.method ?? 'GET').toUpperCase();
      if (method !== 'GET') return request(options);
      const endpoint = octokit.request.endpoint.parse(options);
      const accept = String(endpoint.headers.accept ?? '');
      const key = `${endpoint.url} ${accept}`;
      const cached = this.#cache.get(key);
      if (cached) options.headers = { ...options.headers, 'if-none-match': cached.etag };
      try {
        const response = await request(options);
        const etag = headerText(response.headers.etag);
        if (etag && response.status === 200 && sizeOf(response) <= maxCachedBytes) {
          const entry: CachedResponse = {
            etag,
            response: {
              status: response.status,
              url: response.url,
              headers: { ...response.headers },
              data: response.data,
            },
          };
          this.#cache.set(key, entry);
        }
        return response;
      } catch (error) {
        if (cached && (error as { status?: unknown }).status === 304) {
          this.stats.notModified += 1;
          const headers = (error as { response?: { headers?: Record<string, unknown> } }).response
            ?.headers;
          // Fresh rate-limit headers from the 304, the body from the cache.
          return {
            ...cached.response,
            headers: { ...cached.response.headers, ...(headers ?? {}) },
          } as Awaited<ReturnType<typeof request>>;
        }
        throw error;
      }
    });
  }
}

/** The body size: `content-length` when sent (not with compressed, chunked answers), else measured. */
function sizeOf(response: { headers: Record<string, unknown>; data: unknown }): number {
  const declared = Number(headerText(response.headers['content-length']));
  if (Number.isFinite(declared) && declared > 0) return declared;
  const { data } = response;
  if (typeof data === 'string') return data.length;
  try {
    return JSON.stringify(data)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}
