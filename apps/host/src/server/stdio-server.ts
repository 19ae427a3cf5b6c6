import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { newSessionId } from '../session-policy.js';
import { watchListenedResources } from './listened-resources.js';
import { createMcpServer, setAsideBadArgumentsOf, type ToolsysMcpServer } from './mcp-server.js';
import { LOCAL_PRINCIPAL } from './principal.js';
import { BoundedStdioServerTransport } from './stdio-transport.js';
import type { ToolHost } from './tool-host.js';

/** Options for {@link serveStdio}. */
export interface StdioServeOptions {
  /** Where JSON-RPC arrives; default `process.stdin`. */
  stdin?: Readable;
  /** Where JSON-RPC goes; default `process.stdout`. Nothing else may write to it. */
  stdout?: Writable;
  /** The largest message read, in bytes; larger ones are answered with an error. Default 64 MiB. */
  maxMessageBytes?: number;
}

/** A running stdio MCP server. */
export interface StdioServer {
  /** Settles when the client closes stdin or {@link StdioServer.close} is called. */
  readonly closed: Promise<void>;
  /** Stops serving. */
  close(): Promise<void>;
}

/**
 * Serves the host's tools as an MCP server over stdio until stdin closes. A message over the size
 * limit, or a line that is not JSON-RPC, is answered with a JSON-RPC error and the server goes on
 * reading.
 */
export async function serveStdio(
  host: ToolHost,
  options: StdioServeOptions = {},
): Promise<StdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  // One connection, one session: a fresh random id, ended (grants dropped, packages told) when
  // the connection closes. The opening message picks the era (an `initialize` for 2025-11-25,
  // an `_meta` envelope for 2026-07-28); the SDK pins one server for the connection.
  const sessionId = newSessionId('stdio');
  const made: ToolsysMcpServer[] = [];
  const transport = new BoundedStdioServerTransport(
    stdin,
    stdout,
    options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes },
  );
  setAsideBadArgumentsOf(transport);
  // A 2026-07-28 `subscriptions/listen` that names resources: they are watched for this
  // connection while the listen lasts, and their changes reach it on that stream.
  const stopListens = watchListensOf(
    transport,
    (message, onUpdated) =>
      watchListenedResources(host, message, { principal: LOCAL_PRINCIPAL, sessionId }, onUpdated),
    () => made.at(-1),
  );
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    for (const mcp of made) mcp.dispose();
    stopListens();
    void host.deployment.endSession(sessionId).finally(resolveClosed);
  };
  // The entry sets its own onclose when it starts the transport: ours runs after it.
  let sdkOnClose: (() => void) | undefined;
  Object.defineProperty(transport, 'onclose', {
    configurable: true,
    get: () => () => {
      sdkOnClose?.();
      finish();
    },
    set: (listener: (() => void) | undefined) => {
      sdkOnClose = listener;
    },
  });
  const handle = sdkServeStdio(
    (ctx) => {
      const mcp = createMcpServer(host, { sessionId, era: ctx.era, forwardChanges: true });
      made.push(mcp);
      return mcp.server;
    },
    { transport },
  );
  const close = async () => {
    stdin.off('end', onEnd);
    await handle.close().catch(() => {});
    finish();
    await closed;
  };
  const onEnd = () => {
    void close();
  };
  stdin.once('end', onEnd);
  return { closed, close };
}

type Watch = (
  message: unknown,
  onUpdated: (uri: string) => void,
) => ReturnType<typeof watchListenedResources>;

/**
 * Makes `transport` watch the resources each `subscriptions/listen` request names before the SDK
 * sees it (a listen naming a resource the caller cannot read is refused at once), and stop when
 * the listen is cancelled. Messages keep their order. Returns the function that stops them all.
 */
function watchListensOf(
  transport: BoundedStdioServerTransport,
  watch: Watch,
  current: () => ToolsysMcpServer | undefined,
): () => void {
  const listens = new Map<string | number, () => void>();
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    let queue = Promise.resolve();
    transport.onmessage = (message: JSONRPCMessage) => {
      queue = queue
        .then(async () => {
          const request = message as {
            id?: string | number;
            method?: string;
            params?: { requestId?: string | number };
          };
          if (request.method === 'subscriptions/listen' && request.id !== undefined) {
            const watched = await watch(message, (uri) => {
              current()
                ?.server.sendResourceUpdated({ uri })
                .catch(() => {});
            });
            if ('refusal' in watched) {
              await transport.send(watched.refusal as never);
              return;
            }
            listens.set(request.id, watched.stop);
          } else if (
            request.method === 'notifications/cancelled' &&
            request.params?.requestId !== undefined
          ) {
            listens.get(request.params.requestId)?.();
            listens.delete(request.params.requestId);
          }
          deliver?.(message);
        })
        .catch(() => {
          deliver?.(message);
        });
    };
    await start();
  };
  return () => {
    for (const stop of listens.values()) stop();
    listens.clear();
  };
}
