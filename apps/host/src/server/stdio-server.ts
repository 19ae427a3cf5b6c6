import type { Readable, Writable } from 'node:stream';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { newSessionId } from '../session-policy.js';
import { createMcpServer, setAsideBadArgumentsOf, type ToolsysMcpServer } from './mcp-server.js';
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
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    for (const mcp of made) mcp.dispose();
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
