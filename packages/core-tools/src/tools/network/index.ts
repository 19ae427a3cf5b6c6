// The network tools group: web_fetch, web_search, http_request and download_file behind one SSRF guard.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import { withSecretScrubbing } from '@toolsys/core-tool-registry/text';
import { type HostResolver, SsrfGuard } from '@toolsys/platform';
import { CpuToolPool } from '../../cpu/cpu-tool-pool.js';
import { createDownloadFileTool } from './download-file.js';
import { createHttpRequestTool } from './http-request.js';
import { createSearxngBackend, type SearchBackend } from './search-backend.js';
import type { NetworkSettings } from './shared.js';
import { createWebFetchTool } from './web-fetch.js';
import { createWebSearchTool } from './web-search.js';

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
