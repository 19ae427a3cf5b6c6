import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpManager } from '@toolsys/mcp-client';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpClientExecutor } from './support/mcp-hostile-server.js';

// Issue 30 item 18: a remote HTTP MCP server's 300 MB answer was buffered whole (1.3 GB) before
// being cut, and one 300 MB SSE event took 1.07 GB. A hostile Streamable HTTP server written by
// hand (no SDK) answers tools/call with a huge JSON body or one huge SSE event; the client must
// stop reading at its limit, report it, and its memory must stay bounded meanwhile.

const HUGE_BYTES = 200 * 1024 * 1024;
const CHUNK = Buffer.alloc(256 * 1024, 'x');

const servers: Server[] = [];
const managers: McpManager[] = [];

afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Writes the huge text, chunk by chunk, as long as the client reads. */
async function writeHuge(response: ServerResponse, prefix: string, suffix: string): Promise<void> {
  response.write(prefix);
  for (let sent = 0; sent < HUGE_BYTES && !response.destroyed; sent += CHUNK.length) {
    if (!response.write(CHUNK)) {
      await new Promise((resolve) => {
        response.once('drain', resolve);
        response.once('close', resolve);
      });
    }
  }
  if (!response.destroyed) response.end(suffix);
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return JSON.parse(text || '{}');
}

async function startHostile(mode: 'json' | 'sse'): Promise<string> {
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const message = await readBody(request);
    const { id, method } = message as { id?: number; method?: string };
    if (id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const reply = (result: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    };
    if (method === 'initialize') {
      return reply({
        protocolVersion: (message.params as { protocolVersion: string }).protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile-http', version: '1.0.0' },
      });
    }
    if (method === 'tools/list') {
      return reply({ tools: [{ name: 'huge', inputSchema: { type: 'object' } }] });
    }
    if (method === 'tools/call') {
      const start = `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`;
      const end = '"}]}}';
      if (mode === 'json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return writeHuge(response, start, end);
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      return writeHuge(response, `event: message\ndata: ${start}`, `${end}\n\n`);
    }
    reply({});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** Runs `work` while sampling this process's resident memory; returns the result and the peak growth. */
async function peakGrowthDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; growthMiB: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMiB: (peak - before) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

describe('a remote HTTP MCP server cannot make the client buffer a huge answer (issue 30 item 18)', {
  timeout: 120_000,
}, () => {
  for (const mode of ['json', 'sse'] as const) {
    it(`stops reading a 200 MB ${mode === 'json' ? 'JSON body' : 'SSE event'} at 16 MiB and says so`, async () => {
      const url = await startHostile(mode);
      const manager = new McpManager({
        servers: [{ name: 'hostile', transport: 'streamable-http', url }],
      });
      managers.push(manager);
      const { executor } = mcpClientExecutor(manager);
      await manager.connect('hostile');
      const { result, growthMiB } = await peakGrowthDuring(() =>
        executor.execute('mcp_call', { server: 'hostile', tool: 'huge' }),
      );
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toContain('larger than 16777216 bytes (16 MiB)');
      // Reading 200 MB whole takes about 4 times that in memory; bounded reading, a small part.
      expect(growthMiB).toBeLessThan(150);
    });
  }
});
