import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import { guardedRequest, readBody, SsrfGuard } from '@toolsys/platform';

/** One web search result. */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  /** A short extract of the page, possibly empty. */
  readonly snippet: string;
}

/** Options handed to {@link SearchBackend.search}. */
export interface SearchQueryOptions {
  /** How many results to return at most. */
  readonly limit: number;
  /** Cancels the search. */
  readonly signal: AbortSignal;
}

/** A pluggable web search engine behind `web_search`. */
export interface SearchBackend {
  /** Shown to the model with the results, e.g. `searxng`. */
  readonly name: string;
  /** Runs a query; failures are thrown as {@link ToolError}s. */
  search(query: string, options: SearchQueryOptions): Promise<readonly SearchHit[]>;
}

/** Options for {@link createSearxngBackend}. */
export interface SearxngBackendOptions {
  /** Base URL of the SearXNG instance (its `/search` endpoint must allow `format=json`). */
  url: string;
  /** User-Agent sent with the query. */
  userAgent?: string;
  /** Largest response accepted, in bytes; 2 MiB by default. */
  maxResponseBytes?: number;
}

/**
 * A {@link SearchBackend} on SearXNG's JSON API. The configured instance is trusted by the
 * operator, so its own host is allowed even when it sits on a private network.
 */
export function createSearxngBackend(options: SearxngBackendOptions): SearchBackend {
  const base = new URL(options.url);
  const guard = new SsrfGuard({ allowPrivateNetwork: [base.hostname] });
  const maxBytes = options.maxResponseBytes ?? 2 * 1024 * 1024;
  return {
    name: 'searxng',
    async search(query, { limit, signal }) {
      const url = new URL('search', base.href.endsWith('/') ? base.href : `${base.href}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const response = await guardedRequest({
        url: url.href,
        guard,
        signal,
        headers: {
          accept: 'application/json',
          ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
        },
      });
      const { buffer } = await readBody(response, maxBytes, signal);
      if (response.status !== 200) {
        throw new ToolError(
          ToolErrorCode.EXECUTION_FAILED,
          `The search backend answered HTTP ${response.status}${response.status === 403 ? ' (the SearXNG instance must enable the json format in search.formats)' : ''}.`,
          {
            retryable: response.status >= 500,
            hint: 'Retry later or use web_fetch on a known URL.',
          },
        );
      }
      let parsed: { results?: Array<{ title?: unknown; url?: unknown; content?: unknown }> };
      try {
        parsed = JSON.parse(buffer.toString('utf8'));
      } catch {
        throw new ToolError(
          ToolErrorCode.EXECUTION_FAILED,
          'The search backend did not answer with JSON.',
          { retryable: false, hint: 'Check the configured SearXNG URL.' },
        );
      }
      return (parsed.results ?? [])
        .filter((hit) => typeof hit.url === 'string')
        .slice(0, limit)
        .map((hit) => ({
          title: typeof hit.title === 'string' ? hit.title : String(hit.url),
          url: String(hit.url),
          snippet: typeof hit.content === 'string' ? hit.content : '',
        }));
    },
  };
}
