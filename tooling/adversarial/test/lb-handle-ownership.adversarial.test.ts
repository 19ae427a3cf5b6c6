import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Deployment,
  DeploymentKey,
  type HttpServer,
  scopedConfirm,
  serveHttp,
} from '@toolsys/host';
import { freePort, type HaproxyProcess, startHaproxy } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactProbePackage } from './support/artifact-probe.js';
import { deployHost } from './support/host.js';
import { callMessage, openSession, post } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: two principals on two replicas behind the shipped HAProxy config. A session id, an
// artifact link or a dashboard view of one principal gives the other nothing, whichever replica
// the request reaches.

const ALICE = 'lb-alice-secret-0123456789abcdef01234';
const BOB = 'lb-bob-secret-0123456789abcdef0123456';

let scratch: string;
let haproxy: HaproxyProcess;
const deployments: Deployment[] = [];
const servers: HttpServer[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-lb-handles-'));
  const port = await freePort();
  // Replicas of one deployment share its key (a dashboard sign-in is sealed with it).
  const key = DeploymentKey.generate().export();
  for (const id of ['a', 'b']) {
    const { deployment, host } = await deployHost(join(scratch, id), {
      packages: [artifactProbePackage, riskProbePackage],
      confirm: scopedConfirm,
      env: { TOOLSYS_DEPLOYMENT_KEY: key },
    });
    deployments.push(deployment);
    servers.push(
      await serveHttp(host, {
        host: '127.0.0.1',
        port: 0,
        tokens: [
          { name: 'alice', token: ALICE, scopes: ['tools:read'] },
          { name: 'bob', token: BOB, scopes: ['tools:read'] },
        ],
        replicaId: id,
        allowedHosts: [`127.0.0.1:${port}`],
      }),
    );
  }
  haproxy = await startHaproxy(
    servers.map((server) => new URL(server.url).host),
    { port },
  );
}, 60_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const server of servers) await server.close();
  for (const deployment of deployments) await deployment.close();
  rmSync(scratch, { recursive: true, force: true });
});

type RpcBody = {
  result?: { content?: { type: string; uri?: string }[] };
  error?: { code: number };
};

describe('handles behind HAProxy', { timeout: 120_000 }, () => {
  it('gives another principal 404 for a session and not-found (-32602) for an artifact, on every replica', async () => {
    const mcp = `${haproxy.url}/mcp`;
    const alice = await openSession(mcp, ALICE);
    const made = (await post(mcp, callMessage('probe_artifact'), ALICE, alice)).body as RpcBody;
    const uri = made.result?.content?.find((block) => block.type === 'resource_link')?.uri ?? '';
    expect(uri).toContain('report-alice');

    // Sticky by session id: Bob's request with Alice's id reaches Alice's replica, which refuses.
    const stolen = await post(mcp, callMessage('probe_low'), BOB, alice);
    expect(stolen.status).toBe(404);

    // Bob's own sessions, opened until one lands on each replica.
    const replicas = new Set<string>();
    for (let tries = 0; tries < 10 && replicas.size < 2; tries += 1) {
      const bob = await openSession(mcp, BOB);
      const read = await post(
        mcp,
        { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri } },
        BOB,
        bob,
      );
      replicas.add(read.headers.get('x-toolsys-replica') ?? '');
      expect((read.body as RpcBody).error?.code).toBe(-32602);
    }
    expect(replicas).toEqual(new Set(['a', 'b']));
  });

  it("never shows one principal the other's calls or session ids on any replica's dashboard", async () => {
    const mcp = `${haproxy.url}/mcp`;
    const alice = await openSession(mcp, ALICE);
    await post(mcp, callMessage('probe_low'), ALICE, alice);
    for (const server of servers) {
      const page = await fetch(`${server.url}/api/overview`, {
        headers: { authorization: `Bearer ${BOB}` },
      });
      const text = await page.text();
      expect(text).not.toContain('token:alice');
      expect(text).not.toContain(alice);
    }
  });

  it('holds a dashboard sign-in on every replica (sealed, no stickiness)', async () => {
    const signed = await fetch(`${haproxy.url}/auth/token`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: ALICE }),
    });
    expect(signed.status).toBe(303);
    const cookie = signed.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^toolsys_dashboard=/);
    const seen = new Set<string>();
    for (let index = 0; index < 6; index += 1) {
      const page = await fetch(`${haproxy.url}/api/overview`, { headers: { cookie } });
      expect(page.status).toBe(200);
      seen.add(page.headers.get('x-toolsys-replica') ?? '');
    }
    // Round robin: both replicas answered, each read the sign-in the other sealed.
    expect(seen.size).toBe(2);
  });
});
