// The MCP TypeScript SDK v2's own server, as its README wires one: one `echo` tool, 2026-07-28
// clients and 2025-11-25 clients (its legacy leg) alike. `node sdk-v2-echo-server.mjs [port]`
// serves it with `createMcpHandler` over Streamable HTTP on 127.0.0.1 (a port of 0 picks a free
// one): the serve bench's peer for both eras. `node sdk-v2-echo-server.mjs --stdio` serves it with
// `serveStdio` on stdin and stdout: the mcp bench's peer for 2026-07-28.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const echoServer = () => {
  const server = new McpServer({ name: 'sdk-v2-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the message.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  return server;
};

if (process.argv[2] === '--stdio') {
  // The transport ends itself when the client closes stdin; nothing else keeps the process up.
  serveStdio(echoServer);
} else {
  const serve = toNodeHandler(createMcpHandler(echoServer));
  const http = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    serve(request, response).catch((error) => {
      process.stderr.write(`sdk-v2-echo: ${error}\n`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  http.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
    process.stdout.write(`listening on port ${http.address().port}\n`);
  });
  process.on('SIGTERM', () => http.close(() => process.exit(0)));
}
