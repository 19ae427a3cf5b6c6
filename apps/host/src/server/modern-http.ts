import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { ListedNames } from './listed-names.js';
import { watchListenedResources } from './listened-resources.js';
import { createMcpServer, setAsideBadArguments } from './mcp-server.js';
import { paramHeaderMismatch, paramHeaderMismatchError } from './param-headers.js';
import { LOCAL_PRINCIPAL, type Principal, principalKey } from './principal.js';
import { PrincipalEventBus, runAsOwner } from './principal-event-bus.js';
import { statelessSessionId } from './protocol-era.js';
import type { ToolHost } from './tool-host.js';

/** The 2026-07-28 leg of the HTTP endpoint. */
export interface ModernEndpoint {
  /** Whether a POST body without a session belongs to the 2025-11-25 era (initialize and such). */
  isLegacy(request: IncomingMessage, body: unknown): Promise<boolean>;
  /** Serves one 2026-07-28 request for `principal`, its body already read and checked. */
  handle(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    principal: Principal,
  ): Promise<void>;
  /** Aborts the exchanges in progress and stops forwarding changes. */
  close(): Promise<void>;
}

/**
 * The stateless 2026-07-28 endpoint: a fresh server per request (the SDK's `createMcpHandler`,
 * which validates the `_meta` envelope and the `Mcp-Method` / `Mcp-Name` headers, answers
 * `server/discover` and serves `subscriptions/listen`). Registry and offering changes are
 * published to the open `subscriptions/listen` streams.
 */
export function createModernEndpoint(
  host: ToolHost,
  options: { maxBodyBytes: number },
): ModernEndpoint {
  // The names each principal's tools are listed under outlive the per-request servers.
  const names = new NamesByPrincipal(host);
  // Listen streams are kept per principal: a change of one principal's things reaches its own.
  const bus = new PrincipalEventBus();
  const handler = createMcpHandler(
    (ctx) => {
      const principal = principalOf(ctx.authInfo);
      return createMcpServer(host, { principal, era: 'modern', names: names.of(principal) }).server;
    },
    { legacy: 'reject', maxRequestBodySize: options.maxBodyBytes, bus },
  );
  const serve = toNodeHandler(handler, { maxRequestBodySize: options.maxBodyBytes });
  const stopRegistry = host.deployment.registry.onChange((change) => {
    names.clear();
    // A run-time tool is its definer's: only its streams hear of it.
    if (change.definedBy !== undefined) {
      bus.publishTo(change.definedBy, { kind: 'tools_list_changed' });
    } else {
      handler.notify.toolsChanged();
    }
  });
  const stopOfferings = host.deployment.offerings.onListChanged((kind) => {
    if (kind === 'prompts') handler.notify.promptsChanged();
    else handler.notify.resourcesChanged();
  });
  return {
    async isLegacy(request, body) {
      if (isPlainlyModern(request, body)) return false;
      if (isInitializeRequest(body)) return true;
      return isLegacyRequest(await toWebRequest(request, body), body, {
        maxRequestBodySize: options.maxBodyBytes,
      });
    },
    async handle(request, response, body, principal) {
      // The handler takes the caller from `auth` (already authenticated: it never reads tokens).
      const authInfo: AuthInfo = {
        token: '',
        clientId: principalKey(principal),
        scopes: [...(principal.scopes ?? [])],
        extra: { principal },
      };
      Object.assign(request, { auth: authInfo });
      // A call routed by its Mcp-Param-* header must run with the same value (SEP-2243).
      const mismatch = paramMismatchOf(host, names.of(principal), body, principal, request);
      if (mismatch !== undefined) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify(mismatch));
        return;
      }
      const watched = await watchListenedResources(
        host,
        body,
        { principal, sessionId: statelessSessionId(principal) },
        (uri) => bus.publishTo(principalKey(principal), { kind: 'resource_updated', uri }),
      );
      if ('refusal' in watched) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(watched.refusal));
        return;
      }
      response.once('close', watched.stop);
      const message = Array.isArray(body) ? body : setAsideBadArguments(body as never);
      await runAsOwner(principalKey(principal), () => serve(request, response as never, message));
    },
    async close() {
      stopRegistry();
      stopOfferings();
      await handler.close();
    },
  };
}

/**
 * For a `tools/call` whose arguments disagree with their `Mcp-Param-*` headers (the tool's
 * `x-mcp-header` declarations), the -32020 error to answer with; undefined otherwise.
 */
function paramMismatchOf(
  host: ToolHost,
  names: ListedNames,
  body: unknown,
  principal: Principal,
  request: IncomingMessage,
): Record<string, unknown> | undefined {
  const message = body as { id?: unknown; method?: unknown; params?: unknown } | null;
  if (message?.method !== 'tools/call') return undefined;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof params?.name !== 'string') return undefined;
  const { registry } = host.deployment;
  const tool =
    registry.get(params.name, principal) ?? registry.get(names.idOf(params.name), principal);
  if (tool === undefined) return undefined;
  const mismatch = paramHeaderMismatch(
    tool.inputSchema.jsonSchema,
    params.arguments,
    request.headers,
  );
  if (mismatch === undefined) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  return paramHeaderMismatchError(mismatch, id);
}

/** Principals whose listed names are kept at most; past it the cache starts over. */
const MAX_CACHED_PRINCIPALS = 1_000;

/**
 * The names each principal's tools are listed under (the tool ids behind the names clients
 * call), kept until the registry changes so that a call does not map every id again.
 */
class NamesByPrincipal {
  readonly #host: ToolHost;
  readonly #names = new Map<string, ListedNames>();

  constructor(host: ToolHost) {
    this.#host = host;
  }

  of(principal: Principal): ListedNames {
    const key = principalKey(principal);
    let names = this.#names.get(key);
    if (names === undefined) {
      if (this.#names.size >= MAX_CACHED_PRINCIPALS) this.#names.clear();
      const { registry, config } = this.#host.deployment;
      names = new ListedNames(config.config.tools?.names ?? 'safe', () => registry.ids(principal));
      this.#names.set(key, names);
    }
    return names;
  }

  clear(): void {
    this.#names.clear();
  }
}

/** The first protocol revision of the stateless era. */
const FIRST_MODERN_REVISION = '2026-07-28';

/**
 * Whether a request is of the 2026-07-28 era beyond doubt, without the SDK's full classification
 * (which builds a web request first): one JSON-RPC message, no session, whose `_meta` envelope
 * names a supported stateless revision that its `MCP-Protocol-Version` header repeats. Anything
 * else is classified by the SDK.
 */
function isPlainlyModern(request: IncomingMessage, body: unknown): boolean {
  if (request.headers['mcp-session-id'] !== undefined) return false;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  return (
    typeof version === 'string' &&
    version >= FIRST_MODERN_REVISION &&
    SUPPORTED_PROTOCOL_VERSIONS.includes(version) &&
    request.headers['mcp-protocol-version'] === version
  );
}

/** The principal the HTTP server authenticated, as handed to the server factory. */
function principalOf(authInfo: AuthInfo | undefined): Principal {
  const principal = authInfo?.extra?.principal as Principal | undefined;
  return principal ?? LOCAL_PRINCIPAL;
}
