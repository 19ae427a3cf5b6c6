import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Deployment,
  DeploymentKey,
  type HttpServer,
  REQUEST_STATE_PURPOSE,
  scopedConfirm,
  serveHttp,
} from '@toolsys/host';
import {
  freePort,
  type HaproxyProcess,
  type RedisProcess,
  startHaproxy,
  startRedis,
} from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost } from './support/host.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 33: a 2026-07-28 confirmation is an input_required result whose requestState is sealed
// with the deployment key. Two replicas share the key and a real Redis behind the shipped HAProxy
// config: a state one replica issued completes on the other; a tampered, expired, replayed or
// borrowed state is refused by both.

const KEY = DeploymentKey.generate().export();
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'adversary', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

let scratch: string;
let redis: RedisProcess;
let haproxy: HaproxyProcess;
const deployments: Deployment[] = [];
const servers: HttpServer[] = [];

interface Rpc {
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string; params: { message: string } }>;
    content?: { text: string }[];
    isError?: boolean;
  };
  error?: { code: number; message: string };
}

/** One stateless `tools/call` (of `probe_medium`, which needs confirming), as raw HTTP. */
async function call(
  url: string,
  round: { requestState?: string; inputResponses?: Record<string, unknown> } = {},
  name = 'probe_medium',
): Promise<{ body: Rpc; replica: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: {}, ...round, _meta: ENVELOPE },
    }),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { body: JSON.parse(json) as Rpc, replica: response.headers.get('x-toolsys-replica') };
}

const ALLOW = { action: 'accept', content: { decision: 'allow_once' } };

/** Round 1 on `url`: the state and the key its answer goes under. */
async function firstRound(url: string) {
  const { body } = await call(url);
  expect(body.result?.resultType).toBe('input_required');
  const [key, request] = Object.entries(body.result?.inputRequests ?? {})[0] ?? [];
  expect(request?.method).toBe('elicitation/create');
  expect(request?.params.message).toContain('probe_medium (MEDIUM risk)');
  return { state: body.result?.requestState as string, key: key as string };
}

function refusedAsInvalidState(body: Rpc): void {
  expect(body.result).toBeUndefined();
  expect(body.error?.code).toBe(-32602);
  expect(body.error?.message).toMatch(/requestState/);
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-request-state-'));
  redis = await startRedis();
  const port = await freePort();
  for (const id of ['a', 'b']) {
    const { deployment, host } = await deployHost(join(scratch, id), {
      packages: [riskProbePackage],
      confirm: scopedConfirm,
      config: { state: { redis: { url: redis.url, keyPrefix: 'rs:' } } },
      env: { TOOLSYS_DEPLOYMENT_KEY: KEY },
    });
    deployments.push(deployment);
    servers.push(
      await serveHttp(host, {
        host: '127.0.0.1',
        port: 0,
        replicaId: id,
        allowedHosts: [`127.0.0.1:${port}`],
      }),
    );
  }
  for (const deployment of deployments) {
    await deployment.stack.scaleOut.sharedState?.connection.waitUntilShared(5_000);
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
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('requestState across replicas', { timeout: 120_000 }, () => {
  it('completes on replica b a confirmation replica a asked for', async () => {
    const [a, b] = servers.map((server) => server.mcpUrl) as [string, string];
    const { state, key } = await firstRound(a);
    const done = await call(b, { requestState: state, inputResponses: { [key]: ALLOW } });
    expect(done.replica).toBe('b');
    expect(done.body.result?.content?.[0]?.text).toBe('ran');
  });

  it('completes behind HAProxy, whichever replica each round reaches', async () => {
    const mcp = `${haproxy.url}/mcp`;
    const seen = new Set<string>();
    for (let tries = 0; tries < 6; tries += 1) {
      const { state, key } = await firstRound(mcp);
      const done = await call(mcp, { requestState: state, inputResponses: { [key]: ALLOW } });
      seen.add(done.replica ?? '');
      expect(done.body.result?.content?.[0]?.text).toBe('ran');
    }
    expect([...seen].every((replica) => replica === 'a' || replica === 'b')).toBe(true);
  });

  it('refuses a replayed state on the other replica (used ids live in Redis)', async () => {
    const [a, b] = servers.map((server) => server.mcpUrl) as [string, string];
    const { state, key } = await firstRound(a);
    const answers = { requestState: state, inputResponses: { [key]: ALLOW } };
    expect((await call(a, answers)).body.result?.content?.[0]?.text).toBe('ran');
    refusedAsInvalidState((await call(b, answers)).body);
    refusedAsInvalidState((await call(a, answers)).body);
  });

  it('refuses a tampered state: a flipped character, a truncation, garbage, another key', async () => {
    const [a, b] = servers.map((server) => server.mcpUrl) as [string, string];
    const { state, key } = await firstRound(a);
    const middle = Math.floor(state.length / 2);
    const flipped = `${state.slice(0, middle)}${state[middle] === 'A' ? 'B' : 'A'}${state.slice(middle + 1)}`;
    const forged = DeploymentKey.generate().seal(
      REQUEST_STATE_PURPOSE,
      {
        id: 'x',
        tool: 'probe_medium',
        call: 'x',
        owner: 'local:local',
        answers: [ALLOW],
        asked: key,
      },
      60_000,
    );
    for (const bad of [flipped, state.slice(0, -4), 'not-a-state', forged]) {
      refusedAsInvalidState(
        (await call(b, { requestState: bad, inputResponses: { [key]: ALLOW } })).body,
      );
    }
    // The untouched state still works once: a refusal did not use it up.
    const done = await call(b, { requestState: state, inputResponses: { [key]: ALLOW } });
    expect(done.body.result?.content?.[0]?.text).toBe('ran');
  });

  it('refuses an expired state, even one sealed with the right key', async () => {
    const [, b] = servers.map((server) => server.mcpUrl) as [string, string];
    const { key } = await firstRound(b);
    const expired = DeploymentKey.parse(KEY, 'test').seal(
      REQUEST_STATE_PURPOSE,
      { id: 'old', tool: 'probe_medium', call: 'x', owner: 'x', answers: [], asked: key },
      1_000,
      Date.now() - 60_000,
    );
    refusedAsInvalidState(
      (await call(b, { requestState: expired, inputResponses: { [key]: ALLOW } })).body,
    );
  });

  it('refuses a state issued for another call: an approval is for the call it names', async () => {
    const [a, b] = servers.map((server) => server.mcpUrl) as [string, string];
    const { state, key } = await firstRound(a);
    const swapped = await call(
      b,
      { requestState: state, inputResponses: { [key]: ALLOW } },
      'probe_high',
    );
    expect(swapped.body.result?.content).toBeUndefined();
    expect(swapped.body.error?.code).toBe(-32602);
    expect(swapped.body.error?.message).toContain('issued for another call');
  });
});
