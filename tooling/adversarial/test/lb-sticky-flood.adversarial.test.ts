import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Deployment, type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import {
  freePort,
  type HaproxyProcess,
  initializeRequest,
  startHaproxy,
} from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost, type McpHttpReply, postMcp } from './support/host.js';

// Issue 30 item 10: deploy/haproxy.cfg stored the request's Mcp-Session-Id before
// authentication: unauthenticated requests with junk ids filled the stick table and evicted live
// sessions, whose next requests reached another replica ("Session lost"). Only what a replica
// answered is stored now. The table is made small here (TOOLSYS_LB_STICK_SIZE) so that a flood of
// a few thousand requests fills it; in production 100k entries took 110,000 requests.

const TOKEN = 'lb-flood-token-81c2d4';
const TABLE_SIZE = 200;
const JUNK_REQUESTS = 2_000;
const SESSIONS = 6;

let scratch: string;
let haproxy: HaproxyProcess;
const deployments: Deployment[] = [];
const servers: HttpServer[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-lb-flood-'));
  const port = await freePort();
  for (const id of ['a', 'b', 'c']) {
    const { deployment, host } = await deployHost(join(scratch, id), { confirm: scopedConfirm });
    deployments.push(deployment);
    servers.push(
      await serveHttp(host, {
        host: '127.0.0.1',
        port: 0,
        token: TOKEN,
        replicaId: id,
        allowedHosts: [`127.0.0.1:${port}`],
      }),
    );
  }
  haproxy = await startHaproxy(
    servers.map((server) => new URL(server.url).host),
    { port, env: { TOOLSYS_LB_STICK_SIZE: String(TABLE_SIZE) } },
  );
}, 60_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const server of servers) await server.close();
  for (const deployment of deployments) await deployment.close();
  rmSync(scratch, { recursive: true, force: true });
});

function post(body: unknown, headers: Record<string, string>): Promise<McpHttpReply> {
  return postMcp(`${haproxy.url}/mcp`, body, { headers });
}

/** Opens a session through the load balancer; its id and the replica that created it. */
async function openSession(index: number): Promise<{ id: string; replica: string }> {
  const response = await post(initializeRequest({ clientName: `live-${index}` }), {
    authorization: `Bearer ${TOKEN}`,
  });
  expect(response.status).toBe(200);
  return {
    id: response.headers.get('mcp-session-id') ?? '',
    replica: response.headers.get('x-toolsys-replica') ?? '',
  };
}

/** A ping in the session; the status and the replica that answered. */
async function ping(sessionId: string): Promise<{ status: number; replica: string | null }> {
  const response = await post(
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': sessionId },
  );
  return { status: response.status, replica: response.headers.get('x-toolsys-replica') };
}

/** Unauthenticated requests, each with a fresh junk session id, `concurrency` at a time. */
async function flood(count: number, concurrency = 32): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const response = await post(
        { jsonrpc: '2.0', id: 3, method: 'ping' },
        { 'mcp-session-id': `junk-${index}-${Math.random().toString(36).slice(2)}` },
      );
      statuses.push(response.status);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

describe('sticky sessions behind HAProxy', { timeout: 120_000 }, () => {
  it('live sessions still reach their replica after a flood of unauthenticated junk ids', async () => {
    const sessions = [];
    for (let index = 0; index < SESSIONS; index += 1) sessions.push(await openSession(index));
    expect(new Set(sessions.map((session) => session.replica))).toEqual(new Set(['a', 'b', 'c']));
    for (const session of sessions) {
      expect(await ping(session.id)).toEqual({ status: 200, replica: session.replica });
    }

    const statuses = await flood(JUNK_REQUESTS);
    expect(statuses.length).toBe(JUNK_REQUESTS);
    expect(new Set(statuses)).toEqual(new Set([401]));

    for (const session of sessions) {
      expect(await ping(session.id), session.id).toEqual({ status: 200, replica: session.replica });
    }
  });
});
