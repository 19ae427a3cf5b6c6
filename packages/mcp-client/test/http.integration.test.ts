import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import { isPortOpen } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../src/index.js';
import { marked } from './marked.js';
import {
  createHarness,
  type Harness,
  type HttpServerProcess,
  startEverythingHttp,
} from './support.js';

function nonLoopbackAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((info) => info !== undefined && info.family === 'IPv4' && !info.internal)
    .map((info) => (info as { address: string }).address);
}

/** Tries a TCP connection to this machine's own address; resolves with whether it was accepted. */
const canConnect = (host: string, port: number) => isPortOpen(port, { host, timeoutMs: 2_000 });

describe('server-everything over Streamable HTTP on 127.0.0.1', () => {
  let server: HttpServerProcess;
  let harness: Harness;
  beforeAll(async () => {
    server = await startEverythingHttp('streamableHttp');
    harness = createHarness({
      servers: [{ name: 'remote', transport: 'http', url: `http://127.0.0.1:${server.port}/mcp` }],
    });
  });
  afterAll(async () => {
    await harness?.close();
    await server?.stop();
  });

  it('listens on loopback only: not reachable on a non-loopback address of this machine', async () => {
    expect(await canConnect('127.0.0.1', server.port)).toBe(true);
    const addresses = nonLoopbackAddresses();
    // Control: a server bound to every interface IS reachable on these addresses, so the probe
    // below can tell the difference. Only this machine's own addresses are dialled.
    const control = createServer();
    await new Promise<void>((resolve) => control.listen(0, '0.0.0.0', resolve));
    const controlPort = (control.address() as { port: number }).port;
    try {
      for (const address of addresses) {
        expect(await canConnect(address, controlPort)).toBe(true);
        expect(await canConnect(address, server.port)).toBe(false);
      }
    } finally {
      await new Promise((resolve) => control.close(resolve));
    }
  });

  it('connects with Streamable HTTP and calls echo through mcp_call', async () => {
    const connected = await harness.executor.execute('mcp_connect', { server: 'remote' });
    expect(connected.ok && connected.content).toMatch(
      /^Connected to MCP server "remote" \(streamable-http\)\. \d+ tool\(s\): echo, /,
    );
    const result = await harness.executor.execute('mcp_call', {
      server: 'remote',
      tool: 'echo',
      arguments: { message: 'over http' },
    });
    expect(result).toEqual({ ok: true, content: marked('Echo: over http') });
  });

  it('an ad hoc url connects too (allowed by this harness)', async () => {
    const result = await harness.executor.execute('mcp_connect', {
      server: 'adhoc-remote',
      url: `http://127.0.0.1:${server.port}/mcp`,
    });
    expect(result.ok).toBe(true);
    expect(harness.manager.state('adhoc-remote')).toMatchObject({
      adHoc: true,
      status: 'connected',
    });
  });
});

describe('HTTP+SSE fallback', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startEverythingHttp('sse');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('falls back to SSE when the server does not speak Streamable HTTP', async () => {
    const client = new McpClient({
      name: 'legacy',
      transport: 'http',
      url: `http://127.0.0.1:${server.port}/sse`,
    });
    try {
      await client.connect({ timeoutMs: 10_000 });
      expect(client.transportKind).toBe('sse');
      const result = await client.callTool('echo', { message: 'sse' });
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: sse' }]);
    } finally {
      await client.close();
    }
  });
});

describe('headers and bearer tokens', () => {
  let http: Server;
  let port = 0;
  const seen: IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    // A local endpoint that records request headers and refuses, as a server would without auth.
    http = createServer((request, response) => {
      seen.push(request.headers);
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve));
  });

  it('sends configured headers and the bearer token, and does not fall back after a 401', async () => {
    const client = new McpClient({
      name: 'secured',
      transport: 'http',
      url: `http://127.0.0.1:${port}/mcp`,
      headers: { 'X-Team': 'blue' },
      bearerToken: 'token-123',
    });
    try {
      await expect(client.connect({ timeoutMs: 5_000 })).rejects.toMatchObject({
        code: 'EXECUTION_FAILED',
      });
    } finally {
      await client.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((headers) => headers.authorization === 'Bearer token-123')).toBe(true);
    expect(seen[0]?.['x-team']).toBe('blue');
    // A 401 means the server speaks Streamable HTTP and refused us: no SSE GET follows.
    expect(seen.every((headers) => headers.accept !== 'text/event-stream')).toBe(true);
  });
});
