// The transports an McpClient connects with, made as the deployment configured them. The stdio
// transport (and the child-process machinery under it) loads on the first stdio connection.
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { boundedFetch } from './bounded-fetch.js';
import type { BoundedLog } from './bounded-log.js';
import type { McpHttpServerConfig, McpStdioServerConfig } from './mcp-server-config.js';
import type { McpOAuthProvider } from './oauth/oauth-provider.js';

/** A stdio server's transport: the child starts on connect, its stderr kept in `stderr`. */
export async function stdioTransport(
  config: McpStdioServerConfig,
  stderr: BoundedLog,
): Promise<Transport> {
  const { BatchedStdioClientTransport } = await import('./batched-stdio-transport.js');
  const transport = new BatchedStdioClientTransport({
    command: config.command,
    args: [...(config.args ?? [])],
    env: { ...(config.env ?? {}) },
    stderr: 'pipe',
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.append(chunk));
  return transport;
}

/**
 * A Streamable HTTP transport whose answers are bounded while read, signed in with `oauth` when
 * given (a 401 runs discovery and refresh, a 403 `insufficient_scope` one step-up).
 */
export function streamableTransport(
  config: McpHttpServerConfig,
  oauth?: McpOAuthProvider,
): Transport {
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: httpHeaders(config) },
    ...(oauth === undefined ? {} : { authProvider: oauth, maxStepUpRetries: 1 }),
    // Answers are bounded while read, never buffered whole first.
    fetch: boundedFetch(),
    reconnectionOptions: {
      maxReconnectionDelay: 5_000,
      initialReconnectionDelay: 500,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 2,
    },
  });
}

/** An HTTP+SSE (2024-11-05 transport) transport whose answers are bounded while read. */
export function sseTransport(config: McpHttpServerConfig, oauth?: McpOAuthProvider): Transport {
  const headers = httpHeaders(config);
  const bounded = boundedFetch();
  return new SSEClientTransport(new URL(config.url), {
    requestInit: { headers },
    ...(oauth === undefined ? {} : { authProvider: oauth }),
    fetch: bounded,
    eventSourceInit: {
      fetch: (url, init) =>
        bounded(url, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), ...headers },
        }),
    },
  });
}

function httpHeaders(config: McpHttpServerConfig): Record<string, string> {
  const headers: Record<string, string> = { ...(config.headers ?? {}) };
  if (config.bearerToken !== undefined) headers.Authorization = `Bearer ${config.bearerToken}`;
  return headers;
}
