// The MCP TypeScript SDK v2's own server, as its README wires one: one `echo` tool served by
// `createMcpHandler` on 127.0.0.1 (a port of 0 picks a free one), 2026-07-28 clients and
// 2025-11-25 clients (its stateless legacy leg) alike. The serve bench's peer for both eras.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'sdk-v2-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the message.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  return server;
});
const serve = toNodeHandler(handler);
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
