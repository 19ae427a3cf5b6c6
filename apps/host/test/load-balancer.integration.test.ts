import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  freePort,
  type HaproxyProcess,
  initializeRequest,
  MCP_POST_HEADERS,
  MCP_PROTOCOL_VERSION,
  type RedisProcess,
  startHaproxy,
  startRedis,
} from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

// Three replicas of serve --http sharing a real redis-server, behind a real HAProxy started with
// the shipped deploy/haproxy.cfg (the README's recipe), all on 127.0.0.1.

let redis: RedisProcess;
let haproxy: HaproxyProcess;
const replicas: { id: string; host: TestHost; http: HttpServer; closed: boolean }[] = [];

/**
 * A TCP relay in front of a replica that can die like a killed process: every connection reset
 * at once, new ones refused (an in-process replica cannot be SIGKILLed).
 */
interface Relay {
  readonly host: string;
  kill(): void;
}

async function relayTo(target: string): Promise<Relay> {
  const [targetHost, targetPort] = [
    new URL(`http://${target}`).hostname,
    Number(target.split(':').at(-1)),
  ];
  const sockets = new Set<Socket>();
  const server = createNetServer((inbound) => {
    const outbound = connect(targetPort, targetHost);
    // Each side ends as the other does: a replica that refuses or resets is seen as such.
    for (const [socket, other] of [
      [inbound, outbound],
      [outbound, inbound],
    ] as const) {
      sockets.add(socket);
      socket.on('error', () => other.resetAndDestroy());
      socket.on('close', () => {
        sockets.delete(socket);
        other.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    kill() {
      server.close();
      for (const socket of sockets) socket.resetAndDestroy();
    },
  };
}

const relays: Relay[] = [];

beforeAll(async () => {
  redis = await startRedis();
  const port = await freePort();
  for (const id of ['a', 'b', 'c']) {
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
  // Replica c is reached through a relay the last test kills.
  for (const { http } of replicas) relays.push(await relayTo(new URL(http.url).host));
  haproxy = await startHaproxy(
    relays.map((relay) => relay.host),
    { port },
  );
}, 60_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const relay of relays) relay.kill();
  for (const replica of replicas) {
    if (!replica.closed) await replica.http.close();
    await replica.host.dispose();
  }
  await redis?.stop();
});

/** One JSON-RPC POST through the load balancer; the answer's status, replica and body text. */
async function post(body: unknown, sessionId?: string) {
  const response = await fetch(`${haproxy.url}/mcp`, {
    method: 'POST',
    headers: {
      ...MCP_POST_HEADERS,
      ...(sessionId
        ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': MCP_PROTOCOL_VERSION }
        : {}),
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
  const answer = await post(initializeRequest({ clientName: 't', clientVersion: '1' }));
  expect(answer.status).toBe(200);
  return { sessionId: answer.sessionId ?? '', replica: answer.replica ?? '' };
}

const list = (sessionId: string) =>
  post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, sessionId);

/** An SDK client, through the load balancer, whose session lives on replica `id`. */
async function clientOn(id: string): Promise<Client> {
  for (;;) {
    const candidate = new Client({ name: 'lb-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${haproxy.url}/mcp`));
    await candidate.connect(transport);
    if (transport.sessionId?.startsWith(`${id}.`)) return candidate;
    await candidate.close();
  }
}

describe('replicas behind HAProxy (deploy/haproxy.cfg)', () => {
  it('keeps each session on the replica that created it, and spreads sessions over all', async () => {
    const sessions = await Promise.all([1, 2, 3, 4, 5, 6].map(() => initialize()));
    expect(new Set(sessions.map((session) => session.replica))).toEqual(new Set(['a', 'b', 'c']));
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
    await expect.poll(overview, { timeout: 10_000, interval: 250 }).toEqual(['a', 'b', 'c']);
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

  it('tells the sessions of a stopped replica to initialize again and that their state is lost, at once, while the others serve on', async () => {
    const sessions: Record<string, string> = {};
    while (!sessions.a || !sessions.b) {
      const session = await initialize();
      sessions[session.replica] = session.sessionId;
    }
    const client = await clientOn('b');
    const b = replicas.find((replica) => replica.id === 'b');
    if (!b) throw new Error('no replica b');
    await b.http.close();
    b.closed = true;
    const started = Date.now();
    const lost = await list(sessions.b ?? '');
    expect(lost.status).toBe(404);
    const servedBy = lost.replica ?? '';
    expect(['a', 'c']).toContain(servedBy);
    const error = JSON.parse(lost.text).error as { message: string; data: Record<string, unknown> };
    expect(error.message).toMatch(
      /^Session lost: session "b\.[0-9a-f-]{36}" was opened on replica "b", which no longer serves it \(it stopped, crashed or restarted\), so this request reached replica "[ac]"\. Its state is gone: the open browser pages, terminal sessions and Android device connections of that session, with everything they held\. A call in flight on it when it stopped may or may not have run\. Send initialize again without the Mcp-Session-Id header/,
    );
    expect(error.data).toEqual({
      reason: 'replica-gone',
      openedOn: 'b',
      servedBy,
      stateLost: true,
      next: 'initialize',
    });
    await expect(
      client.callTool({ name: 'calculate', arguments: { expression: '1+1' } }),
    ).rejects.toThrow(/Session lost: .*Send initialize again/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Replica a's session is untouched, new sessions land on the others, and HAProxy marks b down.
    expect((await list(sessions.a ?? '')).status).toBe(200);
    expect(['a', 'c']).toContain((await initialize()).replica);
    // Three failed checks (deploy/haproxy.cfg): a few seconds.
    const deadline = Date.now() + 30_000;
    while ((await haproxy.serverStates()).replica2 !== 'DOWN' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await haproxy.serverStates()).toEqual({
      replica1: 'UP',
      replica2: 'DOWN',
      replica3: 'UP',
    });
    await client.close().catch(() => {});
  }, 60_000);

  it('answers a call in flight on a replica that dies (SIGKILL, crash) with "Session lost … initialize again", never a hang', async () => {
    const client = await clientOn('c');
    const c = replicas.find((replica) => replica.id === 'c');
    if (!c) throw new Error('no replica c');
    const outcome = client
      .callTool({ name: 'test_wait', arguments: { ms: 20_000 } }, undefined, { timeout: 30_000 })
      .then(
        () => 'answered',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    // The call runs on c; then c dies without a word: connections reset, new ones refused.
    await expect.poll(() => c.host.probe.waiting, { timeout: 10_000 }).toBe(1);
    const started = Date.now();
    relays[2]?.kill();
    // HAProxy sends the unanswered request again; the replica that gets it does not know the
    // session and says so (a reply already started could not be sent again: see http-server).
    expect(await outcome).toMatch(/Session lost: .*Send initialize again/);
    expect(Date.now() - started).toBeLessThan(10_000);
    await client.close().catch(() => {});
  }, 60_000);
});
