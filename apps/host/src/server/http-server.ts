import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { handleDashboardRequest } from '../dashboard/dashboard-routes.js';
import { createRequestGuard, isLoopbackHost } from './http-security.js';
import { createMcpServer, type ToolsysMcpServer } from './mcp-server.js';
import { readJson } from './read-json.js';
import type { ToolHost } from './tool-host.js';

/** The default address of `toolsys serve --http`. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

/** The default port of `toolsys serve --http`. */
export const DEFAULT_HTTP_PORT = 7821;

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';

/** Options for {@link serveHttp}. */
export interface HttpServeOptions {
  /** Address to bind. Default 127.0.0.1; anything but loopback requires `token`. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 7821. */
  port?: number;
  /** Bearer token required on every request (always when not bound to loopback). */
  token?: string | undefined;
  /** Browser origins allowed besides the server's own. */
  allowedOrigins?: readonly string[];
}

/** A running HTTP server: MCP at `/mcp`, the dashboard at `/`. */
export interface HttpServer {
  /** The base URL, e.g. `http://127.0.0.1:7821`. */
  readonly url: string;
  /** The MCP endpoint URL. */
  readonly mcpUrl: string;
  /** The dashboard URL. */
  readonly dashboardUrl: string;
  /** Closes every MCP session and stops listening. */
  close(): Promise<void>;
}

/** Refused start-up: the server would be reachable from other machines without a token. */
export class UnsafeBindError extends Error {
  constructor(host: string) {
    super(
      `Refusing to bind ${host} without a bearer token: set TOOLSYS_TOKEN (or --token-env) so that only clients holding it can call tools, or bind 127.0.0.1.`,
    );
    this.name = 'UnsafeBindError';
  }
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly mcp: ToolsysMcpServer;
  /** When the client last sent a request (ms since the epoch). */
  lastSeen: number;
}

/** A session without requests for this long is closed (clients often never send DELETE). */
const SESSION_IDLE_MS = 30 * 60_000;

/**
 * Serves the host over HTTP: a Streamable HTTP MCP endpoint (one MCP server per session) and the
 * dashboard. Binds loopback by default, refuses foreign `Host` and `Origin` headers (DNS
 * rebinding), and requires a bearer token when bound to anything but loopback.
 */
export async function serveHttp(
  host: ToolHost,
  options: HttpServeOptions = {},
): Promise<HttpServer> {
  const bindHost = options.host ?? DEFAULT_HTTP_HOST;
  const token = options.token === '' ? undefined : options.token;
  if (!isLoopbackHost(bindHost) && token === undefined) throw new UnsafeBindError(bindHost);
  const sessions = new Map<string, Session>();
  let guard: ReturnType<typeof createRequestGuard> | undefined;

  const handleMcp = async (request: IncomingMessage, response: ServerResponse) => {
    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) {
        return sendJsonRpcError(response, 404, -32001, 'Session not found; initialize again.');
      }
      session.lastSeen = Date.now();
      const body = request.method === 'POST' ? await readJson(request) : undefined;
      if (body && !body.ok) return sendJsonRpcError(response, body.status, -32700, body.message);
      await session.transport.handleRequest(request, response, body?.value);
      return;
    }
    if (request.method !== 'POST') {
      return sendJsonRpcError(response, 400, -32000, 'Missing mcp-session-id header.');
    }
    const body = await readJson(request);
    if (!body.ok) return sendJsonRpcError(response, body.status, -32700, body.message);
    if (!isInitializeRequest(body.value)) {
      return sendJsonRpcError(
        response,
        400,
        -32000,
        'Missing mcp-session-id header; send initialize first.',
      );
    }
    const mcp = createMcpServer(host);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, mcp, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      mcp.dispose();
    };
    await mcp.server.connect(transport);
    await transport.handleRequest(request, response, body.value);
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const refusal = guard?.(request, url);
    if (refusal) {
      response.writeHead(refusal.status, {
        'content-type': 'application/json',
        ...(refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
      });
      response.end(JSON.stringify({ error: refusal.message }));
      return;
    }
    const work =
      url.pathname === MCP_PATH
        ? handleMcp(request, response)
        : handleDashboardRequest(host, request, response, url);
    work.catch(() => {
      if (!response.headersSent) sendJsonRpcError(response, 500, -32603, 'Internal error.');
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_HTTP_PORT, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const sweeper = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const session of sessions.values()) {
      if (session.lastSeen < cutoff) void session.transport.close().catch(() => {});
    }
  }, 60_000);
  sweeper.unref();
  guard = createRequestGuard({
    host: bindHost,
    port,
    token,
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  const shownHost = isLoopbackHost(bindHost) ? '127.0.0.1' : bindHost;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  return {
    url,
    mcpUrl: `${url}${MCP_PATH}`,
    dashboardUrl: `${url}/`,
    async close() {
      clearInterval(sweeper);
      for (const session of [...sessions.values()]) {
        await session.transport.close().catch(() => {});
        await session.mcp.server.close().catch(() => {});
      }
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sendJsonRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
