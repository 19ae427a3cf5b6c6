import type { Readable, Writable } from 'node:stream';
import { newSessionId } from '../session-policy.js';
import { createMcpServer } from './mcp-server.js';
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
  // the connection closes.
  const sessionId = newSessionId('stdio');
  const mcp = createMcpServer(host, { sessionId });
  const { server, dispose } = mcp;
  const transport = new BoundedStdioServerTransport(
    stdin,
    stdout,
    options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes },
  );
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    void host.deployment.endSession(sessionId).finally(resolveClosed);
  };
  const close = async () => {
    dispose();
    stdin.off('end', onEnd);
    await server.close().catch(() => {});
    finish();
    await closed;
  };
  const onEnd = () => {
    void close();
  };
  server.onclose = () => {
    dispose();
    finish();
  };
  stdin.once('end', onEnd);
  await mcp.connect(transport);
  return { closed, close };
}
