import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import {
  composeDeployment,
  type Deployment,
  type HttpServer,
  resolveDeploymentConfig,
  scopedConfirm,
  serveHttp,
  ToolHost,
} from '@toolsys/host';
import { type RedisProcess, startRedis } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 30 item 12: `x-toolsys-replica` (`<hostname>:<pid>`) was sent to unauthenticated clients,
// on /healthz and on the 401. The id is opaque, and only an authenticated caller receives it.

const TOKEN = 'replica-test-token-2b7e9f';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'replica-probe', version: '1.0.0' },
  },
};

let redis: RedisProcess;
let scratch: string;
let deployment: Deployment;
let server: HttpServer;

beforeAll(async () => {
  redis = await startRedis();
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-replica-id-'));
  mkdirSync(join(scratch, 'workspace'));
  // No replicaId configured: the default is what a deployment would send.
  const resolved = resolveDeploymentConfig(
    {
      workspaceRoot: join(scratch, 'workspace'),
      dataDir: join(scratch, 'data'),
      state: { redis: { url: redis.url, keyPrefix: 'rid:' } },
    },
    { cwd: scratch, env: {} },
  );
  deployment = await composeDeployment(resolved, {
    packages: [corePackage],
    confirm: scopedConfirm,
  });
  server = await serveHttp(new ToolHost(deployment, { warn: () => {} }), {
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
  });
});

afterAll(async () => {
  await server?.close();
  await deployment?.close();
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function initialize(headers: Record<string, string>): Promise<Response> {
  return fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(INITIALIZE),
  });
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
      const text = await response.text();
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers.get('x-toolsys-replica')).toBeNull();
      expect(text).not.toContain(hostname());
    }
  });

  it('is sent after authentication, and names neither the host nor the process', async () => {
    const response = await initialize({ authorization: `Bearer ${TOKEN}` });
    await response.arrayBuffer();
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
