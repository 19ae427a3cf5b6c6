import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { ListedNames } from './listed-names.js';
import { createMcpServer, setAsideBadArguments } from './mcp-server.js';
import { OfferingError } from './offerings.js';
import { paramHeaderMismatch, paramHeaderMismatchError } from './param-headers.js';
import { LOCAL_PRINCIPAL, type Principal, principalKey } from './principal.js';
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
  const handler = createMcpHandler(
    (ctx) => createMcpServer(host, { principal: principalOf(ctx.authInfo), era: 'modern' }).server,
    { legacy: 'reject', maxRequestBodySize: options.maxBodyBytes },
  );
  const serve = toNodeHandler(handler, { maxRequestBodySize: options.maxBodyBytes });
  const names = new NamesByPrincipal(host);
  const stopRegistry = host.deployment.registry.onChange(() => {
    names.clear();
    handler.notify.toolsChanged();
  });
  const stopOfferings = host.deployment.offerings.onListChanged((kind) => {
    if (kind === 'prompts') handler.notify.promptsChanged();
    else handler.notify.resourcesChanged();
  });
  return {
    async isLegacy(request, body) {
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
      const watched = await watchListenedResources(host, body, principal, (uri) =>
        handler.notify.resourceUpdated(uri),
      );
      if ('refusal' in watched) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(watched.refusal));
        return;
      }
      response.once('close', watched.stop);
      const message = Array.isArray(body) ? body : setAsideBadArguments(body as never);
      await serve(request, response as never, message);
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

/** Resources one `subscriptions/listen` stream may watch at most. */
const MAX_LISTENED_RESOURCES = 100;

/**
 * For a `subscriptions/listen` naming `resourceSubscriptions`: subscribes to each resource for the
 * caller (so changes reach `onUpdated` while the stream is open), or, when the caller cannot read
 * one of them (or names too many), the JSON-RPC refusal to send instead. Anything else watches
 * nothing.
 */
async function watchListenedResources(
  host: ToolHost,
  body: unknown,
  principal: Principal,
  onUpdated: (uri: string) => void,
): Promise<{ stop: () => void } | { refusal: Record<string, unknown> }> {
  const message = body as {
    id?: unknown;
    method?: unknown;
    params?: { notifications?: { resourceSubscriptions?: unknown } };
  } | null;
  const uris = message?.params?.notifications?.resourceSubscriptions;
  if (message?.method !== 'subscriptions/listen' || !Array.isArray(uris) || uris.length === 0) {
    return { stop: () => {} };
  }
  const refuse = (text: string, data?: Record<string, unknown>) => ({
    refusal: {
      jsonrpc: '2.0',
      id: message.id ?? null,
      error: { code: ProtocolErrorCode.InvalidParams, message: text, ...(data ? { data } : {}) },
    },
  });
  if (uris.length > MAX_LISTENED_RESOURCES) {
    return refuse(`A listen stream may watch at most ${MAX_LISTENED_RESOURCES} resources.`);
  }
  const stops: Array<() => void> = [];
  const stop = () => {
    for (const each of stops.splice(0)) each();
  };
  const caller = {
    principal,
    sessionId: statelessSessionId(principal),
  };
  for (const uri of uris) {
    try {
      if (typeof uri !== 'string') throw new OfferingError('not_found', 'not a URI');
      stops.push(await host.deployment.offerings.subscribe(uri, caller, onUpdated));
    } catch (error) {
      stop();
      if (!(error instanceof OfferingError)) throw error;
      return refuse(`Resource ${String(uri)} not found: it cannot be watched.`, { uri });
    }
  }
  return { stop };
}

/** The principal the HTTP server authenticated, as handed to the server factory. */
function principalOf(authInfo: AuthInfo | undefined): Principal {
  const principal = authInfo?.extra?.principal as Principal | undefined;
  return principal ?? LOCAL_PRINCIPAL;
}
