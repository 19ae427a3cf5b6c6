import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Deployment, type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { initializeRequest, type RedisProcess, startRedis } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost, type McpHttpReply, postMcp } from './support/host.js';

// Issue 30 item 12: `x-toolsys-replica` (`<hostname>:<pid>`) was sent to unauthenticated clients,
// on /healthz and on the 401. The id is opaque, and only an authenticated caller receives it.

const TOKEN = 'replica-test-token-2b7e9f';
const INITIALIZE = initializeRequest({ clientName: 'replica-probe' });

let redis: RedisProcess;
let scratch: string;
let deployment: Deployment;
let server: HttpServer;

beforeAll(async () => {
  redis = await startRedis();
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-replica-id-'));
  // No replicaId configured: the default is what a deployment would send.
  const deployed = await deployHost(scratch, {
    config: { state: { redis: { url: redis.url, keyPrefix: 'rid:' } } },
    confirm: scopedConfirm,
  });
  deployment = deployed.deployment;
  server = await serveHttp(deployed.host, { host: '127.0.0.1', port: 0, token: TOKEN });
});

afterAll(async () => {
  await server?.close();
  await deployment?.close();
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function initialize(headers: Record<string, string>): Promise<McpHttpReply> {
  return postMcp(server.mcpUrl, INITIALIZE, { headers });
}

describe('the replica header', () => {
  it('is not sent on /healthz', async () => {
    const response = await fetch(new URL('/healthz', server.url));
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-toolsys-replica')).toBeNull();
  });

  it('is not sent on a 401 (no token, a wrong token, a junk session id)', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token' },
      { 'mcp-session-id': 'junk.00000000-0000-0000-0000-000000000000' },
    ];
    for (const headers of attempts) {
      const response = await initialize(headers);
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers.get('x-toolsys-replica')).toBeNull();
      expect(response.text).not.toContain(hostname());
    }
  });

  it('is sent after authentication, and names neither the host nor the process', async () => {
    const response = await initialize({ authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    const replica = response.headers.get('x-toolsys-replica');
    expect(replica).toMatch(/^r-[0-9a-f]{12}$/);
    expect(replica).not.toContain(hostname());
    expect(replica).not.toContain(String(process.pid));
    const session = response.headers.get('mcp-session-id') ?? '';
    expect(session.startsWith(`${replica}.`)).toBe(true);
    expect(session).not.toContain(hostname());
    await fetch(server.mcpUrl, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': session },
    });
  });
});
