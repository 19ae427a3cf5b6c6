import { createServer, type Server } from 'node:http';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  initializeRequest,
  MCP_POST_HEADERS,
  MCP_PROTOCOL_VERSION,
  type RedisProcess,
  startRedis,
} from '@toolsys/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeScaleOut } from '../src/commands/doctor.js';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { contentText } from './support/mcp-client.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

// Two host replicas (each its own deployment and HTTP server on 127.0.0.1) sharing one real
// redis-server, exporting to an in-test OTLP/HTTP receiver.

let redis: RedisProcess;
let receiver: Server;
let otlpEndpoint: string;
const otlpBodies: { path: string; body: string }[] = [];
const replicas: { host: TestHost; http: HttpServer }[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  redis = await startRedis();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      otlpBodies.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  otlpEndpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  for (const replicaId of ['a', 'b']) {
    const host = await createTestHost({
      state: { redis: { url: redis.url, keyPrefix: 'replicas:', replicaId } },
      telemetry: { otlp: { endpoint: otlpEndpoint } },
      tools: {
        runPolicies: { test_structured: { ratePerMinute: 5 }, test_wait: { ratePerMinute: 5 } },
      },
    });
    const http = await serveHttp(host.host, { host: '127.0.0.1', port: 0 });
    replicas.push({ host, http });
    await host.deployment.stack.scaleOut.sharedState?.connection.waitUntilShared(5000);
  }
}, 60_000);

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

afterAll(async () => {
  for (const { host, http } of replicas) {
    await http.close();
    await host.dispose();
  }
  await redis?.stop();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

async function connect(index: number, elicit = false): Promise<Client> {
  const client = new Client(
    { name: 'replica-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  const replica = replicas[index];
  if (!replica) throw new Error('no replica');
  await client.connect(new StreamableHTTPClientTransport(new URL(replica.http.mcpUrl)));
  clients.push(client);
  return client;
}

describe('two replicas of serve --http sharing Redis', () => {
  it('say in doctor that Redis and OTLP are configured and Redis is shared', () => {
    const lines = describeScaleOut(replicas[0]?.host.deployment.stack.scaleOutStatus() ?? never());
    expect(lines[0]).toMatch(
      /^redis: {5}shared via redis:\/\/127\.0\.0\.1:\d+ \(keys replicas:\*\) since /,
    );
    expect(lines[1]).toMatch(/^otlp: {6}exporting to http:\/\/127\.0\.0\.1:\d+ /);
  });

  it('admit the quota all sessions share once across both replicas (20 a minute, not 40)', async () => {
    // Six sessions, three on each replica, each within its own quota of 5 a minute: only the
    // quota all sessions share (four sessions' worth) holds them, across both replicas.
    const clients = [];
    for (let index = 0; index < 6; index += 1) clients.push(await connect(index % 2));
    const texts: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      for (const client of clients) {
        texts.push(
          contentText(await client.callTool({ name: 'test_structured', arguments: { name: 'x' } })),
        );
      }
    }
    expect(texts.filter((entry) => entry === 'Hello, x!')).toHaveLength(20);
    expect(
      texts.filter((entry) =>
        entry.startsWith(
          'Error: [RATE_LIMITED] test_structured is limited to 20 calls a minute across all sessions',
        ),
      ),
    ).toHaveLength(10);
  });

  it('keep each session’s own quota (5 a minute) whichever replica serves the others', async () => {
    const greedy = await connect(0);
    const patient = await connect(1);
    const texts: string[] = [];
    for (let call = 0; call < 7; call += 1) {
      texts.push(contentText(await greedy.callTool({ name: 'test_wait', arguments: { ms: 0 } })));
    }
    expect(texts.filter((entry) => entry === 'waited 0 ms')).toHaveLength(5);
    expect(texts.at(-1)).toMatch(
      /^Error: \[RATE_LIMITED\] test_wait is limited to 5 calls a minute and the quota is used up/,
    );
    expect(contentText(await patient.callTool({ name: 'test_wait', arguments: { ms: 0 } }))).toBe(
      'waited 0 ms',
    );
  });

  it('honour on replica B an "always" answer given on replica A', async () => {
    const clientA = await connect(0, true);
    clientA.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept',
      content: { decision: 'allow_always' },
    }));
    expect(
      contentText(await clientA.callTool({ name: 'test_guarded', arguments: { note: 'a' } })),
    ).toBe('guarded ran a');
    // Replica B's client cannot be asked at all, yet the shared grant lets the call through.
    const clientB = await connect(1);
    expect(
      contentText(await clientB.callTool({ name: 'test_guarded', arguments: { note: 'b' } })),
    ).toBe('guarded ran b');
  });

  it('answer a session id from the other replica with HTTP 404 and a "re-initialize" JSON-RPC error', async () => {
    const [a, b] = replicas;
    if (!a || !b) throw new Error('no replicas');
    const init = await fetch(a.http.mcpUrl, {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: JSON.stringify(initializeRequest({ clientName: 't', clientVersion: '1' })),
    });
    const sessionId = init.headers.get('mcp-session-id');
    await init.body?.cancel();
    expect(sessionId).toBeTruthy();
    const elsewhere = await fetch(b.http.mcpUrl, {
      method: 'POST',
      headers: {
        ...MCP_POST_HEADERS,
        'mcp-session-id': sessionId ?? '',
        'mcp-protocol-version': MCP_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(elsewhere.status).toBe(404);
    const body = (await elsewhere.json()) as { error?: { code: number; message: string } };
    expect(body.error?.message).toMatch(/initialize/i);
  });

  it('export spans under the client trace context from _meta, and show both replicas on the dashboard', async () => {
    const clientB = await connect(1);
    await clientB.callTool({
      name: 'calculate',
      arguments: { expression: '6*7' },
      _meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    await replicas[1]?.host.deployment.stack.scaleOut.telemetry?.flush();
    const traces = otlpBodies
      .filter((entry) => entry.path === '/v1/traces')
      .map((entry) => entry.body);
    const joined = traces.join('\n');
    expect(joined).toContain('"traceId":"0af7651916cd43dd8448eb211c80319c"');
    expect(joined).toContain('"parentSpanId":"b7ad6b7169203331"');
    expect(joined).not.toContain('6*7');
    const dashboard = await fetch(`${replicas[0]?.http.url}/api/overview`);
    const overview = (await dashboard.json()) as {
      sharedSpans: { replica: string; toolId: string }[] | null;
      scaleOut: { redis: { mode: string } };
    };
    expect(overview.scaleOut.redis.mode).toBe('shared');
    const seen = new Set(overview.sharedSpans?.map((span) => span.replica));
    expect([...seen].sort()).toEqual(['a', 'b']);
  });

  it('join a 2026-07-28 call to the trace in its _meta as well', async () => {
    const replica = replicas[0];
    if (!replica) throw new Error('no replica');
    const client = new ModernClient(
      { name: 'replica-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernHttpTransport(new URL(replica.http.mcpUrl)));
    try {
      const result = await client.callTool({
        name: 'calculate',
        arguments: { expression: '5*5' },
        _meta: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      });
      expect(contentText(result)).toBe('25');
    } finally {
      await client.close();
    }
    await replica.host.deployment.stack.scaleOut.telemetry?.flush();
    const joined = otlpBodies
      .filter((entry) => entry.path === '/v1/traces')
      .map((entry) => entry.body)
      .join('\n');
    expect(joined).toContain('"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"');
    expect(joined).toContain('"parentSpanId":"00f067aa0ba902b7"');
  });

  it('keeps serving on local state when Redis is killed, and doctor says it fell back', async () => {
    const clientA = await connect(0);
    // The tool's worker starts (and loads its math library) first: the bound is about Redis.
    expect(
      contentText(await clientA.callTool({ name: 'calculate', arguments: { expression: '1' } })),
    ).toBe('1');
    await redis.kill();
    const started = Date.now();
    const result = await clientA.callTool({ name: 'calculate', arguments: { expression: '1+1' } });
    expect(contentText(result)).toBe('2');
    expect(Date.now() - started).toBeLessThan(5000);
    const status = replicas[0]?.host.deployment.stack.scaleOutStatus() ?? never();
    expect(describeScaleOut(status)[0]).toMatch(
      /^redis: {5}unreachable, fallen back to local state since \S+ \(redis:\/\/127\.0\.0\.1:\d+: .+\); retrying in the background$/,
    );
  });
});

function never(): never {
  throw new Error('missing replica');
}
