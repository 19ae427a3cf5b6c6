import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactProbePackage } from './support/artifact-probe.js';
import { deployHost, type HostDeployment } from './support/host.js';
import { callMessage, openSession, post } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: a handle (here an artifact link) belongs to the principal whose call made it; another
// principal presenting it gets the answer of a handle that never existed.

const ALICE = 'alice-secret-0123456789abcdef0123456789';
const BOB = 'bob-secret-0123456789abcdef0123456789ab';
const CAROL = 'carol-secret-0123456789abcdef012345678';

let scratch: string;
let deployed: HostDeployment;
let server: HttpServer;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-handles-'));
  deployed = await deployHost(scratch, {
    packages: [artifactProbePackage, riskProbePackage],
    confirm: scopedConfirm,
  });
  server = await serveHttp(deployed.host, {
    port: 0,
    tokens: [
      { name: 'alice', token: ALICE },
      { name: 'bob', token: BOB },
      { name: 'carol', token: CAROL, scopes: ['tools:read'] },
    ],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await deployed?.deployment.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function readMessage(uri: string) {
  return { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri } };
}

type RpcBody = {
  result?: { content?: { type: string; uri?: string }[]; contents?: { text?: string }[] };
  error?: { code: number; message: string; data?: unknown };
};

describe('artifacts belong to their principal', { timeout: 60_000 }, () => {
  it("answers another principal's artifact link exactly as one that never existed", async () => {
    const alice = await openSession(server.mcpUrl, ALICE);
    const made = (await post(server.mcpUrl, callMessage('probe_artifact'), ALICE, alice))
      .body as RpcBody;
    const uri = made.result?.content?.find((block) => block.type === 'resource_link')?.uri ?? '';
    expect(uri).toMatch(/^toolsys:\/\/data\/probe\/report-alice\.txt$/);
    const own = (await post(server.mcpUrl, readMessage(uri), ALICE, alice)).body as RpcBody;
    expect(own.result?.contents?.[0]?.text).toBe('secret of alice');

    const bob = await openSession(server.mcpUrl, BOB);
    const stolen = (await post(server.mcpUrl, readMessage(uri), BOB, bob)).body as RpcBody;
    const never = uri.replace('report-alice', 'report-nobody');
    const missing = (await post(server.mcpUrl, readMessage(never), BOB, bob)).body as RpcBody;
    expect(stolen.result).toBeUndefined();
    // Not found, as the SDK answers it in both eras: -32602 with data { uri }.
    expect(stolen.error?.code).toBe(-32602);
    expect(stolen.error?.data).toEqual({ uri });
    expect(stolen.error?.message.replace(uri, '<uri>')).toBe(
      missing.error?.message.replace(never, '<uri>'),
    );
    const listed = (
      await post(server.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'resources/list' }, BOB, bob)
    ).body as { result?: { resources?: { uri: string }[] } };
    expect(listed.result?.resources?.map((resource) => resource.uri)).not.toContain(uri);
  });

  it('runs a dashboard form call as the signed-in principal, not as local', async () => {
    const reply = await fetch(`${server.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOB}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'probe_whoami', args: {} }),
    });
    const body = (await reply.json()) as { result?: { content?: string } };
    expect(JSON.parse(body.result?.content ?? 'null')).toMatchObject({ id: 'bob', kind: 'token' });
  });
});

describe('the dashboard shows each principal only its own calls, and no session id', {
  timeout: 60_000,
}, () => {
  async function overview(token: string) {
    const reply = await fetch(`${server.url}/api/overview`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(reply.status).toBe(200);
    return (await reply.text()) as string;
  }

  it('lists a scoped principal its own calls only, and an operator everyone’s, as digests', async () => {
    const alice = await openSession(server.mcpUrl, ALICE);
    const carol = await openSession(server.mcpUrl, CAROL);
    await post(server.mcpUrl, callMessage('probe_low'), ALICE, alice);
    await post(server.mcpUrl, callMessage('probe_low'), CAROL, carol);

    const seenByCarol = await overview(CAROL);
    const carolView = JSON.parse(seenByCarol) as {
      calls: { principal: string; session: string }[];
      spans: { principal?: string }[];
      states?: unknown;
    };
    expect(new Set(carolView.calls.map((call) => call.principal))).toEqual(
      new Set(['token:carol']),
    );
    expect(new Set(carolView.spans.map((span) => span.principal))).toEqual(new Set(['carol']));
    expect(carolView.states).toBeUndefined();

    const seenByBob = await overview(BOB);
    const principals = (JSON.parse(seenByBob) as { calls: { principal: string }[] }).calls.map(
      (call) => call.principal,
    );
    expect(principals).toContain('token:alice');
    expect(principals).toContain('token:carol');
    for (const page of [seenByCarol, seenByBob]) {
      expect(page).not.toContain(alice);
      expect(page).not.toContain(carol);
    }
  });

  it('streams a scoped principal only its own live calls', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${server.url}/api/events`, {
      headers: { authorization: `Bearer ${CAROL}` },
      signal: controller.signal,
    });
    const alice = await openSession(server.mcpUrl, ALICE);
    const carol = await openSession(server.mcpUrl, CAROL);
    await post(server.mcpUrl, callMessage('probe_low'), ALICE, alice);
    await post(server.mcpUrl, callMessage('probe_low'), CAROL, carol);
    const reader = stream.body?.getReader();
    let text = '';
    while (!text.includes('"token:carol"')) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    controller.abort();
    expect(text).toContain('"token:carol"');
    expect(text).not.toContain('alice');
    expect(text).not.toContain(carol);
  });

  it('keeps the call form from a scoped principal without the admin scope', async () => {
    const reply = await fetch(`${server.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CAROL}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'probe_medium', args: {} }),
    });
    expect(reply.status).toBe(403);
    expect(reply.headers.get('www-authenticate')).toContain('scope="tools:admin"');
  });
});
