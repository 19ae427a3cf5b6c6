import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { freePort, type HaproxyProcess, startHaproxy } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callMessage, openSession, post, textOf } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: a second user of a deployment of two replicas behind a real HAProxy (the shipped
// deploy/haproxy.cfg) holds the first user's session id, seen on a screen or in a log. HAProxy
// routes it to the owner's replica; that replica must answer as for an id it never issued.

const ALICE = 'alice-secret-0123456789abcdef0123456789';
const BOB = 'bob-secret-0123456789abcdef0123456789ab';

let scratch: string;
let haproxy: HaproxyProcess;
const replicas: { deployment: Deployment; server: HttpServer }[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-replicas-'));
  const port = await freePort();
  for (const replicaId of ['r1', 'r2']) {
    const root = join(scratch, replicaId);
    mkdirSync(join(root, 'workspace'), { recursive: true });
    const resolved = resolveDeploymentConfig(
      { workspaceRoot: join(root, 'workspace'), dataDir: join(root, 'data') },
      { cwd: root, env: {} },
    );
    const deployment = await composeDeployment(resolved, {
      packages: [corePackage, riskProbePackage],
      confirm: scopedConfirm,
    });
    const server = await serveHttp(new ToolHost(deployment, { warn: () => {} }), {
      port: 0,
      replicaId,
      allowedHosts: [`127.0.0.1:${port}`],
      tokens: [
        { name: 'alice', token: ALICE },
        { name: 'bob', token: BOB },
      ],
    });
    replicas.push({ deployment, server });
  }
  haproxy = await startHaproxy(
    replicas.map(({ server }) => new URL(server.url).host),
    { port },
  );
}, 60_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const { server, deployment } of replicas) {
    await server.close();
    await deployment.close();
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const mcpUrl = () => `${haproxy.url}/mcp`;

/** The JSON-RPC error message of a reply, with the id it names replaced, for comparison. */
function errorShape(status: number, body: unknown, sessionId: string) {
  const error = (body as { error?: { message?: string } } | undefined)?.error;
  return { status, message: error?.message?.replaceAll(sessionId, '<id>') };
}

describe('session ids across replicas behind HAProxy', { timeout: 60_000 }, () => {
  it("answers another principal's session id on its owner's replica exactly as an id never issued", async () => {
    const alices = await Promise.all([1, 2, 3, 4].map(() => openSession(mcpUrl(), ALICE)));
    // Sessions are spread over both replicas, and each stays on the replica that issued it.
    expect(new Set(alices.map((id) => id.split('.')[0]))).toEqual(new Set(['r1', 'r2']));
    for (const session of alices) {
      const own = await post(mcpUrl(), callMessage('probe_low'), ALICE, session);
      expect(own.headers.get('x-toolsys-replica')).toBe(session.split('.')[0]);
      expect(textOf(own)).toBe('ran');

      const stolen = await post(mcpUrl(), callMessage('probe_low'), BOB, session);
      // Routed to the owner's replica, which refuses it.
      expect(stolen.headers.get('x-toolsys-replica')).toBe(session.split('.')[0]);
      // What the owner's replica says of an id it never issued (asked directly: through HAProxy an
      // id it never saw goes to any replica).
      const replica = replicas[Number(session.slice(1, 2)) - 1]?.server;
      const forged = `${session.split('.')[0]}.00000000-0000-4000-8000-000000000000`;
      const never = await post(replica?.mcpUrl ?? '', callMessage('probe_low'), BOB, forged);
      expect(errorShape(stolen.status, stolen.body, session)).toEqual(
        errorShape(never.status, never.body, forged),
      );
      expect(stolen.status).toBe(404);
      expect(JSON.stringify(stolen.body)).not.toContain('ran');
    }
  });

  it("cannot end another principal's session or listen on its stream", async () => {
    const session = await openSession(mcpUrl(), ALICE);
    const headers = (token: string) => ({
      authorization: `Bearer ${token}`,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
      accept: 'text/event-stream',
    });
    const ended = await fetch(mcpUrl(), { method: 'DELETE', headers: headers(BOB) });
    expect(ended.status).toBe(404);
    await ended.body?.cancel();
    const listen = await fetch(mcpUrl(), {
      method: 'GET',
      headers: headers(BOB),
      signal: AbortSignal.timeout(5000),
    });
    expect(listen.status).toBe(404);
    await listen.body?.cancel();
    // The owner's session is untouched.
    expect(textOf(await post(mcpUrl(), callMessage('probe_low'), ALICE, session))).toBe('ran');
    const own = await fetch(mcpUrl(), { method: 'DELETE', headers: headers(ALICE) });
    expect(own.status).toBe(200);
    await own.body?.cancel();
    expect((await post(mcpUrl(), callMessage('probe_low'), ALICE, session)).status).toBe(404);
  });
});
