import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './mcp-server.js';
import type { ToolHost } from './tool-host.js';

/** Options for {@link serveStdio}. */
export interface StdioServeOptions {
  /** Where JSON-RPC arrives; default `process.stdin`. */
  stdin?: Readable;
  /** Where JSON-RPC goes; default `process.stdout`. Nothing else may write to it. */
  stdout?: Writable;
}

/** A running stdio MCP server. */
export interface StdioServer {
  /** Settles when the client closes stdin or {@link StdioServer.close} is called. */
  readonly closed: Promise<void>;
  /** Stops serving. */
  close(): Promise<void>;
}

/** Serves the host's tools as an MCP server over stdio until stdin closes. */
export async function serveStdio(
  host: ToolHost,
  options: StdioServeOptions = {},
): Promise<StdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const { server, dispose } = createMcpServer(host, { sessionId: 'mcp-stdio' });
  const transport = new StdioServerTransport(stdin, stdout);
  let finish: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const close = async () => {
    dispose();
    stdin.off('end', onEnd);
    await server.close().catch(() => {});
    finish();
  };
  const onEnd = () => {
    void close();
  };
  server.onclose = () => {
    dispose();
    finish();
  };
  stdin.once('end', onEnd);
  await server.connect(transport);
  return { closed, close };
}
