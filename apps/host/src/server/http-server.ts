import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { type DashboardVisitor, dashboardAccessFor } from '../dashboard/dashboard-access.js';
import { handleDashboardRequest } from '../dashboard/dashboard-routes.js';
import { dashboardSignInsFor } from '../dashboard/sealed-sign-ins.js';
import {
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  MCP_PATH,
} from './http-defaults.js';
import { createRequestGuard, isLoopbackHost } from './http-security.js';
import { createMcpServer, mcpSessionId, type ToolsysMcpServer } from './mcp-server.js';
import { MAX_MESSAGE_BYTES } from './message-limits.js';
import { createModernEndpoint } from './modern-http.js';
import { createScopeRules, type OAuthResource, type ScopeRules } from './oauth-resource.js';
import { LOCAL_PRINCIPAL, type Principal, principalKey } from './principal.js';
import { BodyBudget, readJson } from './read-json.js';
import { auditScopeRefusal, missingScope } from './scope-check.js';
import { sessionLostData, sessionNotFoundMessage } from './session-lost.js';
import {
  createStaticTokens,
  DEFAULT_TOKEN_NAME,
  hasEveryScope,
  type NamedToken,
} from './static-tokens.js';
import type { ToolHost } from './tool-host.js';

/** The JSON-RPC error code of a request naming a session this server does not have. */
export const SESSION_NOT_FOUND_CODE = -32001;

/** The path a load balancer health-checks: 200 while this server takes requests. */
export const HEALTH_PATH = '/healthz';

/** The response header naming the replica that answered (for load balancers and clients). */
export const REPLICA_HEADER = 'x-toolsys-replica';

/** Options for {@link serveHttp}. */
export interface HttpServeOptions {
  /** Address to bind. Default 127.0.0.1; anything but loopback requires `token`. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 7821. */
  port?: number;
  /**
   * Bearer token required on every request (always when not bound to loopback); the caller is
   * then the principal `default`. Same as a `tokens` entry without scopes.
   */
  token?: string | undefined;
  /**
   * Named bearer tokens: each request must carry one of them (or, with `auth`, an access token),
   * and the caller is the principal of that name. A token with scopes may call only the tools
   * whose risk they cover.
   */
  tokens?: readonly NamedToken[];
  /**
   * The scope each risk level needs, for named tokens with scopes when there is no `auth` (with
   * `auth`, its own). Default `tools:read`, `tools:write`, `tools:admin`.
   */
  scopes?: ScopeRules;
  /** Browser origins allowed besides the server's own. */
  allowedOrigins?: readonly string[];
  /**
   * `Host` headers (host:port) accepted besides the server's own while bound to loopback: the
   * address of a load balancer in front of it.
   */
  allowedHosts?: readonly string[];
  /**
   * Most MCP sessions open at once; a new `initialize` beyond it gets 503 with Retry-After.
   * Default 100.
   */
  maxSessions?: number;
  /**
   * A session without requests (and with none in progress) for this long is closed; its id then
   * gets 404. Default 30 minutes.
   */
  sessionIdleMs?: number;
  /** The largest request body, in bytes. Default 64 MiB, the same as over stdio. */
  maxBodyBytes?: number;
  /**
   * This replica's name, sent in the `x-toolsys-replica` header of every response past
   * authentication (not on `/healthz`, not on a 401) and put in
   * front of its session ids (`<replica>.<uuid>`), so that another replica can say whose session
   * a request names. Default: the deployment's replica name (`server.replicaName`,
   * `TOOLSYS_REPLICA_NAME`), else the shared state's replica id when `state.redis` is
   * configured, else none.
   */
  replicaId?: string;
  /**
   * Makes the server an OAuth 2.1 protected resource: every request but `/healthz` and the
   * protected resource metadata needs an access token from its issuer, and a `tools/call` needs
   * the scope of the tool's risk. Replaces `token` when set.
   */
  auth?: OAuthResource;
  /** Where clients reach this server (`server.publicUrl`): the dashboard's cookie is Secure when https:. */
  publicUrl?: string | undefined;
  /**
   * The public OAuth client (PKCE) the dashboard signs people in with, at `auth`'s issuer, with
   * the redirect URI `<publicUrl>/auth/callback` (`server.auth.dashboardClientId`).
   */
  dashboardClientId?: string | undefined;
}

/** A running HTTP server: MCP at `/mcp`, the dashboard at `/`. */
export interface HttpServer {
  /** The base URL, e.g. `http://127.0.0.1:7821`. */
  readonly url: string;
  /** The MCP endpoint URL. */
  readonly mcpUrl: string;
  /** The dashboard URL. */
  readonly dashboardUrl: string;
  /** MCP sessions open right now. */
  readonly sessionCount: number;
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
  readonly transport: NodeStreamableHTTPServerTransport;
  readonly mcp: ToolsysMcpServer;
  /** When the client last sent a request or a request of it ended (ms since the epoch). */
  lastSeen: number;
  /** Requests of this session still being answered (a long call, an open SSE stream). */
  active: number;
  /** Who opened it ({@link principalKey}): nobody else may use it. */
  readonly owner: string;
}

/** Bodies held at once across all requests: four of the largest. */
const BODY_BUDGET_MESSAGES = 4;

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}.`);
  }
  return value;
}

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
  const { auth } = options;
  const named: NamedToken[] = [
    ...(options.token ? [{ name: DEFAULT_TOKEN_NAME, token: options.token }] : []),
    ...(options.tokens ?? []),
  ];
  if (!isLoopbackHost(bindHost) && named.length === 0 && !auth) {
    throw new UnsafeBindError(bindHost);
  }
  const tokenPrincipal = named.length > 0 ? createStaticTokens(named) : undefined;
  const dashboardAccess = dashboardAccessFor({
    tokenPrincipal,
    auth,
    clientId: options.dashboardClientId,
    publicUrl: options.publicUrl,
    // Sealed with the deployment key: a sign-in holds on every replica and across restarts.
    sessions: dashboardSignInsFor(host.deployment),
  });
  const rules: ScopeRules = auth ?? options.scopes ?? createScopeRules();
  /** Whether the caller's scopes limit what it may call (OAuth, or a named token with scopes). */
  const isScoped = (principal: Principal) =>
    principal.kind === 'oauth' || (principal.kind === 'token' && !hasEveryScope(principal));
  const identify = async (
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
  ): Promise<Principal | undefined> => {
    const byName = tokenPrincipal?.(request, url);
    if (byName) {
      // Checked: from here on nothing (transport, tools, downstream servers) sees the secret.
      delete request.headers.authorization;
      return byName;
    }
    if (auth) return authenticate(request, response, auth);
    if (tokenPrincipal) {
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      response.end(JSON.stringify({ error: 'A valid bearer token is required.' }));
      return undefined;
    }
    return LOCAL_PRINCIPAL;
  };
  const maxSessions = positiveInteger(options.maxSessions, DEFAULT_MAX_SESSIONS, 'maxSessions');
  const idleMs = positiveInteger(options.sessionIdleMs, DEFAULT_SESSION_IDLE_MS, 'sessionIdleMs');
  const maxBodyBytes = positiveInteger(options.maxBodyBytes, MAX_MESSAGE_BYTES, 'maxBodyBytes');
  const budget = new BodyBudget(maxBodyBytes * BODY_BUDGET_MESSAGES);
  const sessions = new Map<string, Session>();
  const modern = createModernEndpoint(host, { maxBodyBytes });
  const replicaId = replicaTag(
    options.replicaId ??
      host.deployment.replicaName ??
      host.deployment.stack.scaleOut.sharedState?.replicaId,
  );
  /** Initializes between the capacity check and their session's registration. */
  let reserved = 0;
  let guard: ReturnType<typeof createRequestGuard> | undefined;
  let closing = false;

  const isIdle = (session: Session, now: number) =>
    session.active === 0 && now - session.lastSeen >= idleMs;
  const evict = (session: Session) => {
    if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    void session.transport.close().catch(() => {});
  };
  const evictIdle = () => {
    const now = Date.now();
    for (const session of [...sessions.values()]) if (isIdle(session, now)) evict(session);
  };
  /** Seconds until the first session could become idle enough to be closed (at least 1). */
  const secondsUntilRoom = () => {
    const now = Date.now();
    let soonest = idleMs;
    for (const session of sessions.values()) {
      if (session.active === 0) soonest = Math.min(soonest, session.lastSeen + idleMs - now);
    }
    return Math.max(1, Math.ceil(soonest / 1000));
  };
  /** Counts a request of the session as in progress until its response ends. */
  const track = (session: Session, response: ServerResponse) => {
    session.active += 1;
    session.lastSeen = Date.now();
    response.once('close', () => {
      session.active -= 1;
      session.lastSeen = Date.now();
    });
  };

  const handleMcp = async (
    request: IncomingMessage,
    response: ServerResponse,
    principal: Principal,
  ) => {
    const owner = principalKey(principal);
    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session && isIdle(session, Date.now())) evict(session);
      // Another principal's session is answered exactly as an unknown one.
      if (!session || !sessions.has(sessionId) || session.owner !== owner) {
        return sendJsonRpcError(
          response,
          404,
          SESSION_NOT_FOUND_CODE,
          sessionNotFoundMessage(sessionId, replicaId, idleMs),
          {},
          null,
          sessionLostData(sessionId, replicaId),
        );
      }
      track(session, response);
      const body =
        request.method === 'POST'
          ? await readJson(request, { maxBytes: maxBodyBytes, budget })
          : undefined;
      if (body && !body.ok) return sendRefusal(response, body);
      if (isScoped(principal) && body?.ok) {
        const needed = missingScope(host, rules, principal, body.value);
        if (needed !== undefined) {
          auditScopeRefusal(host, principal, needed);
          return sendInsufficientScope(response, auth, needed.scope, body.value);
        }
      }
      if (request.method === 'POST') holdHeadersUntilFirstWrite(response);
      await session.transport.handleRequest(request, response, body?.value);
      return;
    }
    if (request.method !== 'POST') {
      return sendJsonRpcError(response, 400, -32000, 'Missing mcp-session-id header.');
    }
    const body = await readJson(request, { maxBytes: maxBodyBytes, budget });
    if (!body.ok) return sendRefusal(response, body);
    if (!(await modern.isLegacy(request, body.value))) {
      // 2026-07-28: stateless, every request stands alone.
      if (isScoped(principal)) {
        const needed = missingScope(host, rules, principal, body.value);
        if (needed !== undefined) {
          auditScopeRefusal(host, principal, needed);
          return sendInsufficientScope(response, auth, needed.scope, body.value);
        }
      }
      holdHeadersUntilFirstWrite(response);
      return modern.handle(request, response, body.value, principal);
    }
    if (!isInitializeRequest(body.value)) {
      return sendJsonRpcError(
        response,
        400,
        -32000,
        'Missing mcp-session-id header; send initialize first.',
      );
    }
    if (sessions.size + reserved >= maxSessions) evictIdle();
    if (sessions.size + reserved >= maxSessions) {
      const retryAfter = secondsUntilRoom();
      return sendJsonRpcError(
        response,
        503,
        -32000,
        `Too many sessions: this server holds at most ${maxSessions} at once. Retry in ${retryAfter} s, or end sessions you no longer use (HTTP DELETE with their Mcp-Session-Id).`,
        { 'retry-after': String(retryAfter) },
        idOf(body.value),
      );
    }
    reserved += 1;
    const mcp = createMcpServer(host, { principal });
    let registered: Session | undefined;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => (replicaId ? `${replicaId}.${randomUUID()}` : randomUUID()),
      onsessioninitialized: (id) => {
        registered = { transport, mcp, lastSeen: Date.now(), active: 0, owner };
        sessions.set(id, registered);
        reserved -= 1;
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) {
        sessions.delete(transport.sessionId);
        // Closed by the client, evicted when idle, or the server stopping: its state goes too.
        void host.deployment.endSession(mcpSessionId(transport.sessionId));
      }
      mcp.dispose();
    };
    try {
      await mcp.connect(transport);
      await transport.handleRequest(request, response, body.value);
    } finally {
      if (!registered) {
        // The initialize failed: nothing may stay subscribed to the registry.
        reserved -= 1;
        await transport.close().catch(() => {});
        mcp.dispose();
      }
    }
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === HEALTH_PATH && (request.method === 'GET' || request.method === 'HEAD')) {
      // Before the guard: a load balancer checks health without the token, and learns only this.
      response.writeHead(closing ? 503 : 200, { 'content-type': 'application/json' });
      response.end(request.method === 'HEAD' ? undefined : JSON.stringify({ ok: !closing }));
      return;
    }
    const refusal = guard?.(request, url);
    if (refusal) {
      response.writeHead(refusal.status, {
        'content-type': 'application/json',
        ...(refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
      });
      response.end(JSON.stringify({ error: refusal.message }));
      return;
    }
    if (auth && isMetadataPath(url.pathname, auth)) {
      response.writeHead(request.method === 'GET' || request.method === 'HEAD' ? 200 : 405, {
        'content-type': 'application/json',
        'cache-control': 'max-age=300',
      });
      response.end(request.method === 'HEAD' ? undefined : JSON.stringify(auth.metadata));
      return;
    }
    const work = (async () => {
      const visitor: DashboardVisitor | undefined =
        url.pathname === MCP_PATH
          ? await identify(request, response, url).then((principal) => principal && { principal })
          : await dashboardAccess.visitor(request, response, url, () =>
              identify(request, response, url),
            );
      if (visitor === undefined) return;
      const { principal } = visitor;
      // Only a caller past the guard learns which replica answered (the health check does not).
      if (replicaId) response.setHeader(REPLICA_HEADER, replicaId);
      if (url.pathname === MCP_PATH) return handleMcp(request, response, principal);
      // Every principal sees its own calls; the form's calls are not checked against scopes, so
      // a scoped caller needs the highest scope to use it.
      const isOperator = !isScoped(principal) || rules.allows(principal.scopes, 'HIGH');
      if (!isOperator && request.method !== 'GET') {
        return sendInsufficientScope(response, auth, rules.scopeFor('HIGH'), undefined);
      }
      return handleDashboardRequest(host, request, response, url, {
        principal,
        isOperator,
        ...(visitor.csrf ? { csrf: visitor.csrf } : {}),
      });
    })();
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
  const sweeper = setInterval(evictIdle, Math.min(60_000, Math.max(1_000, idleMs / 2)));
  sweeper.unref();
  guard = createRequestGuard({
    host: bindHost,
    port,
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  });
  const shownHost = isLoopbackHost(bindHost) ? '127.0.0.1' : bindHost;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  return {
    url,
    mcpUrl: `${url}${MCP_PATH}`,
    dashboardUrl: `${url}/`,
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      closing = true;
      clearInterval(sweeper);
      for (const session of [...sessions.values()]) {
        await session.transport.close().catch(() => {});
        await session.mcp.server.close().catch(() => {});
      }
      sessions.clear();
      await modern.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a path is the protected resource metadata: the root form or the path-suffixed one. */
function isMetadataPath(pathname: string, auth: OAuthResource): boolean {
  return (
    pathname === '/.well-known/oauth-protected-resource' ||
    pathname === new URL(auth.metadataUrl).pathname
  );
}

/**
 * The principal an OAuth access token names, or undefined after answering 401. The token is
 * taken off the request once checked, so that nothing after this point (the MCP transport, tools,
 * servers they reach) can see or forward it.
 */
async function authenticate(
  request: IncomingMessage,
  response: ServerResponse,
  auth: OAuthResource,
): Promise<Principal | undefined> {
  const header = request.headers.authorization;
  delete request.headers.authorization;
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header?.trim() ?? '');
  const check = match?.[1] ? await auth.verify(match[1]) : undefined;
  if (check?.ok) {
    const { subject, clientId, scopes } = check.identity;
    return { id: subject, kind: 'oauth', ...(clientId ? { clientId } : {}), scopes };
  }
  const description =
    header === undefined ? undefined : (check?.description ?? 'Expected "Bearer <token>".');
  response.writeHead(401, {
    'content-type': 'application/json',
    'www-authenticate': auth.challenge(description),
  });
  response.end(JSON.stringify({ error: description ?? 'An access token is required.' }));
  return undefined;
}

/** Answers 403 with the step-up challenge (RFC 6750 §3.1) for a call that needs `scope`. */
function sendInsufficientScope(
  response: ServerResponse,
  auth: OAuthResource | undefined,
  scope: string,
  message: unknown,
): void {
  const challenge = auth
    ? auth.insufficientScope(scope)
    : `Bearer error="insufficient_scope", scope="${scope.replace(/["\\]/g, '')}"`;
  sendJsonRpcError(
    response,
    403,
    -32003,
    `This call needs the "${scope}" scope, which the caller's token does not grant. Ask for a token with it.`,
    { 'www-authenticate': challenge },
    Array.isArray(message) ? null : idOf(message),
    { requiredScope: scope },
  );
}

/**
 * Sends the headers of a reply with its first bytes, not before. The SDK starts a streamed (SSE)
 * reply to a call at once and writes the call's result later; were the headers sent at once, a
 * replica that dies while the call runs would leave its client a stream cut without an answer,
 * which MCP clients wait on until their own timeout. Held back, nothing has reached the load
 * balancer when the replica dies, so HAProxy sends the request again (`retry-on
 * empty-response` in deploy/haproxy.cfg) to a replica that answers "Session lost … initialize
 * again". A call that has sent progress, a log line or the SDK's keep-alive comment (every 15 s)
 * has started its reply: cut then, its client still sees the stream end.
 */
function holdHeadersUntilFirstWrite(response: ServerResponse): void {
  response.flushHeaders = () => {};
}

function sendJsonRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: string | number | null = null,
  data?: Record<string, unknown>,
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(
    JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id }),
  );
}

/** A replica id usable in a header and a session id: visible ASCII, no dot, at most 64. */
function replicaTag(id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const tag = id.replace(/[^A-Za-z0-9_:-]/g, '-').slice(0, 64);
  return tag === '' ? undefined : tag;
}

/** Answers a body that was not read: too large (413), busy (503), or not JSON (400). */
function sendRefusal(
  response: ServerResponse,
  refusal: { status: number; message: string; retryAfterSeconds?: number },
): void {
  const code = refusal.status === 400 ? -32700 : refusal.status === 413 ? -32600 : -32000;
  const headers: Record<string, string> =
    refusal.retryAfterSeconds === undefined
      ? {}
      : { 'retry-after': String(refusal.retryAfterSeconds) };
  // The unread rest of a refused body is not worth keeping the connection for.
  if (refusal.status !== 400) headers.connection = 'close';
  sendJsonRpcError(response, refusal.status, code, refusal.message, headers);
}

/** The id of a parsed JSON-RPC request, or null. */
function idOf(value: unknown): string | number | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
