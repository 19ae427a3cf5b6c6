import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { type HaproxyProcess, startHaproxy } from './support/haproxy.js';
import { freePort, type RedisProcess, startRedis } from './support/redis-server.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

// Two replicas of serve --http sharing a real redis-server, behind a real HAProxy started with the
// shipped deploy/haproxy.cfg (the README's recipe), all on 127.0.0.1.

let redis: RedisProcess;
let haproxy: HaproxyProcess;
const replicas: { id: string; host: TestHost; http: HttpServer; closed: boolean }[] = [];

beforeAll(async () => {
  redis = await startRedis();
  const port = await freePort();
  for (const id of ['a', 'b']) {
    const host = await createTestHost({
      state: { redis: { url: redis.url, keyPrefix: 'lb:', replicaId: id } },
    });
    // The load balancer's address is a Host header the loopback-bound replicas accept.
    const http = await serveHttp(host.host, {
      host: '127.0.0.1',
      port: 0,
      allowedHosts: [`127.0.0.1:${port}`],
    });
    replicas.push({ id, host, http, closed: false });
  }
  haproxy = await startHaproxy(
    replicas.map(({ http }) => new URL(http.url).host),
    { port },
  );
}, 60_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const replica of replicas) {
    if (!replica.closed) await replica.http.close();
    await replica.host.dispose();
  }
  await redis?.stop();
});

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** One JSON-RPC POST through the load balancer; the answer's status, replica and body text. */
async function post(body: unknown, sessionId?: string) {
  const response = await fetch(`${haproxy.url}/mcp`, {
    method: 'POST',
    headers: {
      ...HEADERS,
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return {
    status: response.status,
    replica: response.headers.get('x-toolsys-replica'),
    sessionId: response.headers.get('mcp-session-id'),
    text: await response.text(),
  };
}

async function initialize() {
  const answer = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    },
  });
  expect(answer.status).toBe(200);
  return { sessionId: answer.sessionId ?? '', replica: answer.replica ?? '' };
}

const list = (sessionId: string) =>
  post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, sessionId);

describe('replicas behind HAProxy (deploy/haproxy.cfg)', () => {
  it('keeps each session on the replica that created it, and spreads sessions over both', async () => {
    const sessions = await Promise.all([1, 2, 3, 4].map(() => initialize()));
    expect(new Set(sessions.map((session) => session.replica))).toEqual(new Set(['a', 'b']));
    for (const session of sessions) {
      expect(session.sessionId.startsWith(`${session.replica}.`)).toBe(true);
      for (let request = 0; request < 3; request += 1) {
        const answer = await list(session.sessionId);
        expect([answer.status, answer.replica]).toEqual([200, session.replica]);
      }
    }
    // The dashboard says which replica served it, and which replicas were alive at its last
    // heartbeat (one a second): a replica that started after the serving one's last beat shows
    // up at the next.
    const overview = async () => {
      const page = await fetch(`${haproxy.url}/api/overview`);
      const body = (await page.json()) as {
        replica: string;
        scaleOut: { redis: { liveReplicas: string[] } };
      };
      expect(body.replica).toBe(page.headers.get('x-toolsys-replica'));
      return body.scaleOut.redis.liveReplicas;
    };
    await expect.poll(overview, { timeout: 10_000, interval: 250 }).toEqual(['a', 'b']);
  });

  it('answers a forged or unknown session id with a clear 404, never echoing what is not an id', async () => {
    const unknown = await list('zz.00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error.message).toMatch(
      /^Session lost: session "zz\.0{8}-.*" was opened on replica "zz", which no longer serves it .*Send initialize again/,
    );
    const garbage = await list(`${'\u00ff'.repeat(8)}${'x'.repeat(4000)}`);
    expect(garbage.status).toBe(404);
    const message = JSON.parse(garbage.text).error.message as string;
    expect(message).toMatch(/^Session not found: this server has no session with this id /);
    expect(message).not.toContain('xxxx');
  });

  it('tells the sessions of a stopped replica to initialize again and that their state is lost, at once, while the other replica serves on', async () => {
    const sessions: Record<string, string> = {};
    while (!sessions.a || !sessions.b) {
      const session = await initialize();
      sessions[session.replica] = session.sessionId;
    }
    // An SDK client whose session lives on replica b.
    let client: Client | undefined;
    while (!client) {
      const candidate = new Client({ name: 'lb-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${haproxy.url}/mcp`));
      await candidate.connect(transport);
      if (transport.sessionId?.startsWith('b.')) client = candidate;
      else await candidate.close();
    }
    const b = replicas.find((replica) => replica.id === 'b');
    if (!b) throw new Error('no replica b');
    await b.http.close();
    b.closed = true;
    const started = Date.now();
    const lost = await list(sessions.b ?? '');
    expect(lost.status).toBe(404);
    expect(lost.replica).toBe('a');
    const error = JSON.parse(lost.text).error as { message: string; data: Record<string, unknown> };
    expect(error.message).toMatch(
      /^Session lost: session "b\.[0-9a-f-]{36}" was opened on replica "b", which no longer serves it \(it stopped, crashed or restarted\), so this request reached replica "a"\. Its state is gone: the open browser pages, terminal sessions and Android device connections of that session, with everything they held\. A call in flight on it when it stopped may or may not have run\. Send initialize again without the Mcp-Session-Id header/,
    );
    expect(error.data).toEqual({
      reason: 'replica-gone',
      openedOn: 'b',
      servedBy: 'a',
      stateLost: true,
      next: 'initialize',
    });
    await expect(
      client.callTool({ name: 'calculate', arguments: { expression: '1+1' } }),
    ).rejects.toThrow(/Session lost: .*Send initialize again/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Replica a's session is untouched, new sessions land on a, and HAProxy marks b down.
    expect((await list(sessions.a ?? '')).status).toBe(200);
    expect((await initialize()).replica).toBe('a');
    // Three failed checks (deploy/haproxy.cfg): a few seconds.
    const deadline = Date.now() + 30_000;
    while ((await haproxy.serverStates()).replica2 !== 'DOWN' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await haproxy.serverStates()).toEqual({ replica1: 'UP', replica2: 'DOWN' });
    await client.close().catch(() => {});
  }, 60_000);
});
