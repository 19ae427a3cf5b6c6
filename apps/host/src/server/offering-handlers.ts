import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { readArtifactResource } from './artifact-resource.js';
import { ARTIFACT_URI_PREFIX } from './artifact-uri.js';
import { type OfferingInputSetup, withOfferingInput } from './offering-input.js';
import { type OfferingCaller, OfferingError, type ServerOfferings } from './offerings.js';
import { principalKey } from './principal.js';
import type { RecentArtifacts } from './recent-artifacts.js';
import type { ToolHost } from './tool-host.js';

/** Subscriptions one legacy connection may hold at once. */
const MAX_SUBSCRIPTIONS = 100;

/** What the offering handlers need of their server. */
export interface OfferingSetup {
  readonly host: ToolHost;
  readonly offerings: ServerOfferings;
  /** Who asks, for the request being served. */
  readonly caller: (ctx: ServerContext) => OfferingCaller;
  /** Artifacts this connection was sent. */
  readonly listed: RecentArtifacts;
  /** How the client is asked for input (era, key, its capabilities). */
  readonly input: OfferingInputSetup;
}

/**
 * Serves the deployment's offerings (prompts, resources and templates, completion, resource
 * subscriptions) and the artifacts tool results linked, through the same handlers in both eras.
 * Returns how to drop the connection's subscriptions.
 */
export function registerOfferingHandlers(server: Server, setup: OfferingSetup): () => void {
  const { offerings, host } = setup;
  server.setRequestHandler('prompts/list', async (_request, ctx) => ({
    prompts: wire(await offerings.listPrompts(setup.caller(ctx))),
  }));
  server.setRequestHandler('prompts/get', (request, ctx) => {
    const { name } = request.params;
    const args = { ...(request.params.arguments ?? {}) };
    return refusingAsProtocol(() =>
      withOfferingInput(
        setup.input,
        ctx,
        setup.caller(ctx),
        { method: 'prompts/get', target: [name, args] },
        async (caller) => wire(await offerings.getPrompt(name, args, caller)),
      ),
    );
  });
  server.setRequestHandler('resources/list', async (_request, ctx) => {
    const own = wire(await offerings.listResources(setup.caller(ctx)));
    const artifacts = setup.listed.list().map(({ uri, name, mimeType, description, size }) => ({
      uri,
      name,
      mimeType,
      ...(description !== undefined ? { description } : {}),
      size,
    }));
    return { resources: [...own, ...artifacts] };
  });
  server.setRequestHandler('resources/templates/list', async (_request, ctx) => ({
    resourceTemplates: wire(await offerings.listResourceTemplates(setup.caller(ctx))),
  }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    const caller = setup.caller(ctx);
    if (uri.startsWith(ARTIFACT_URI_PREFIX)) {
      return readArtifactResource(uri, {
        dataDir: host.deployment.config.dataDir,
        linked: host.artifacts,
        owner: principalKey(caller.principal),
      });
    }
    return withOfferingInput(
      setup.input,
      ctx,
      caller,
      { method: 'resources/read', target: uri },
      async (asking) => {
        const contents = await offerings.readResource(uri, asking);
        if (contents === undefined) {
          throw new ResourceNotFoundError(
            uri,
            `Resource ${uri} not found. resources/list and resources/templates/list show what this server offers.`,
          );
        }
        return { contents: wire(contents) };
      },
    );
  });
  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref, argument, context } = request.params;
    const target =
      ref.type === 'ref/prompt'
        ? { type: 'ref/prompt' as const, name: ref.name }
        : { type: 'ref/resource' as const, uri: ref.uri };
    const answer = await offerings.complete(
      target,
      argument,
      context?.arguments ? { arguments: context.arguments } : {},
      setup.caller(ctx),
    );
    const values = answer.values.slice(0, 100);
    return {
      completion: {
        values,
        ...(answer.total !== undefined ? { total: answer.total } : {}),
        ...(answer.hasMore !== undefined ? { hasMore: answer.hasMore } : {}),
      },
    };
  });
  const subscriptions = new Map<string, () => void>();
  server.setRequestHandler('resources/subscribe', (request, ctx) =>
    refusingAsProtocol(async () => {
      const { uri } = request.params;
      if (subscriptions.has(uri)) return {};
      if (subscriptions.size >= MAX_SUBSCRIPTIONS) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `At most ${MAX_SUBSCRIPTIONS} resource subscriptions per session; unsubscribe from some first.`,
        );
      }
      const stop = await offerings.subscribe(uri, setup.caller(ctx), (changed) => {
        server.sendResourceUpdated({ uri: changed }).catch(() => {});
      });
      subscriptions.set(uri, stop);
      return {};
    }),
  );
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    subscriptions.get(request.params.uri)?.();
    subscriptions.delete(request.params.uri);
    return {};
  });
  return () => {
    for (const stop of subscriptions.values()) stop();
    subscriptions.clear();
  };
}

/** Runs an offering call, answering an {@link OfferingError} with the protocol's error. */
async function refusingAsProtocol<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof OfferingError)) throw error;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  }
}

/**
 * An offering's answer as the SDK's mutable wire types: the offerings' shapes are the protocol's
 * JSON made read-only, so a copy is all it takes (and no caller's object is handed on).
 */
// biome-ignore lint/suspicious/noExplicitAny: the SDK types the target; the shapes are the same JSON
function wire(value: unknown): any {
  return structuredClone(value);
}
