import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Deployment, type HttpServer, serveHttp } from '@toolsys/host';
import { toolPackage as terminalPackage } from '@toolsys/platform-terminal';
import { freePort, type HaproxyProcess, startHaproxy } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost } from './support/host.js';
import { openSession, postModernCall, type Reply } from './support/mcp-http-calls.js';

// Issue 33: handles that name their replica, routed by the Mcp-Param-Handle header through the
// shipped HAProxy config to two replicas (replica1, replica2). The header is a route, never a
// credential: a forged handle, another principal's handle, a header that disagrees with the
// argument or one missing, and a handle of a replica that does not exist all fail cleanly, and
// nobody learns whether another principal's handle exists.

const ALICE = 'route-alice-secret-0123456789abcdef0123';
const BOB = 'route-bob-secret-0123456789abcdef012345';
const SCOPES = ['tools:read', 'tools:write', 'tools:admin'];

let scratch: string;
let haproxy: HaproxyProcess;
let mcp: string;
const deployments: Deployment[] = [];
const servers: HttpServer[] = [];

type RpcBody = {
  result?: {
    isError?: boolean;
    content?: { text?: string }[];
    structuredContent?: Record<string, unknown>;
  };
  error?: { code: number; message: string; data?: { mismatch?: { header: string } } };
};

const bodyOf = (reply: Reply) => reply.body as RpcBody;
const textOf = (reply: Reply) =>
  bodyOf(reply)
    .result?.content?.map((block) => block.text ?? '')
    .join('') ?? '';
const randomHex = () => randomBytes(16).toString('hex');

/** A call that passes `sessionId` and mirrors it into Mcp-Param-Handle, as a 2026 client does. */
function callWith(name: string, sessionId: string, token: string, header: string = sessionId) {
  return postModernCall(
    mcp,
    name,
    { sessionId },
    { token, headers: { 'mcp-param-handle': header } },
  );
}

/** Alice's new terminal session (a real PTY running bash) and the replica that holds it. */
async function aliceSession(): Promise<{ sessionId: string; replica: string }> {
  const created = await postModernCall(mcp, 'terminal_create', {}, { token: ALICE });
  const sessionId = String(bodyOf(created).result?.structuredContent?.sessionId);
  const replica = /^(replica[12])\.t-[0-9a-f]{32}$/.exec(sessionId)?.[1];
  if (replica === undefined) throw new Error(`no session: ${JSON.stringify(created.body)}`);
  expect(created.headers.get('x-toolsys-replica')).toBe(replica);
  return { sessionId, replica };
}

/** A NOT_FOUND text with the id it names replaced, to compare answers about different ids. */
const withoutId = (text: string, id: string) => text.replaceAll(id, '<id>');

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-lb-routing-'));
  const port = await freePort();
  for (const name of ['replica1', 'replica2']) {
    const dir = join(scratch, name);
    const { deployment, host } = await deployHost(dir, {
      packages: [terminalPackage],
      config: { permissions: { MEDIUM: 'allow', HIGH: 'allow' } },
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, TOOLSYS_REPLICA_NAME: name },
    });
    deployments.push(deployment);
    servers.push(
      await serveHttp(host, {
        host: '127.0.0.1',
        port: 0,
        tokens: [
          { name: 'alice', token: ALICE, scopes: SCOPES },
          { name: 'bob', token: BOB, scopes: SCOPES },
        ],
        allowedHosts: [`127.0.0.1:${port}`],
      }),
    );
  }
  haproxy = await startHaproxy(
    servers.map((server) => new URL(server.url).host),
    { port },
  );
  mcp = `${haproxy.url}/mcp`;
}, 60_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const server of servers) await server.close();
  for (const deployment of deployments) await deployment.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('routing by handle behind HAProxy', { timeout: 120_000 }, () => {
  it("gives Bob the answer of a handle that never existed for Alice's, on her replica", async () => {
    const { sessionId, replica } = await aliceSession();
    const forged = `${replica}.t-${randomHex()}`;
    const stolen = await callWith('terminal_snapshot', sessionId, BOB);
    const unknown = await callWith('terminal_snapshot', forged, BOB);
    // Both reached the replica the handle names (the header routed them) and both are refused alike.
    expect(stolen.headers.get('x-toolsys-replica')).toBe(replica);
    expect(unknown.headers.get('x-toolsys-replica')).toBe(replica);
    expect(bodyOf(stolen).result?.isError).toBe(true);
    expect(textOf(stolen)).toContain('[NOT_FOUND] sessionId: no open terminal session');
    expect(withoutId(textOf(stolen), sessionId)).toBe(withoutId(textOf(unknown), forged));
    // Bob's closing it did nothing: Alice's session still answers her.
    const closed = await callWith('terminal_close', sessionId, BOB);
    expect(bodyOf(closed).result?.isError).toBe(true);
    const mine = await callWith('terminal_snapshot', sessionId, ALICE);
    expect(bodyOf(mine).result?.isError ?? false).toBe(false);
  });

  it('refuses with -32020 a header that disagrees with the argument, before the tool runs', async () => {
    const { sessionId, replica } = await aliceSession();
    const other = replica === 'replica1' ? 'replica2' : 'replica1';
    // Routed by the header to the other replica, asking to close Alice's session there: refused.
    const routedAway = await callWith(
      'terminal_close',
      sessionId,
      ALICE,
      `${other}.t-${randomHex()}`,
    );
    expect(routedAway.status).toBe(400);
    expect(bodyOf(routedAway).error?.code).toBe(-32020);
    expect(bodyOf(routedAway).error?.data?.mismatch?.header).toBe('Mcp-Param-Handle');
    expect(routedAway.headers.get('x-toolsys-replica')).toBe(other);
    // A value in other case, the header sent twice, and a header left out are refused alike.
    for (const header of [sessionId.toUpperCase(), `${sessionId},${sessionId}`]) {
      const reply = await callWith('terminal_close', sessionId, ALICE, header);
      expect(reply.status).toBe(400);
      expect(bodyOf(reply).error?.code).toBe(-32020);
    }
    const missing = await postModernCall(mcp, 'terminal_close', { sessionId }, { token: ALICE });
    expect(missing.status).toBe(400);
    expect(bodyOf(missing).error?.message).toMatch(/Mcp-Param-Handle header is absent/);
    // An invalid Base64 sentinel is refused; a valid one carrying the same value is the value.
    const badBase64 = await callWith('terminal_snapshot', sessionId, ALICE, '=?base64?@@@?=');
    expect(bodyOf(badBase64).error?.code).toBe(-32020);
    const encoded = `=?base64?${Buffer.from(sessionId).toString('base64')}?=`;
    const viaBase64 = await callWith('terminal_snapshot', sessionId, ALICE, encoded);
    expect(bodyOf(viaBase64).result?.isError ?? false).toBe(false);
    // None of the refused closes ran: the session is still open where it lives.
    const still = await callWith('terminal_snapshot', sessionId, ALICE);
    expect(still.headers.get('x-toolsys-replica')).toBe(replica);
    expect(bodyOf(still).result?.isError ?? false).toBe(false);
  });

  it('answers a handle of a replica that does not exist as gone, from whichever replica', async () => {
    const ghost = `replica7.t-${randomHex()}`;
    const servedBy = new Set<string>();
    const texts = new Set<string>();
    for (let call = 0; call < 4; call += 1) {
      const reply = await callWith('terminal_snapshot', ghost, BOB);
      servedBy.add(reply.headers.get('x-toolsys-replica') ?? '');
      const text = textOf(reply);
      expect(text).toContain(
        `[NOT_FOUND] sessionId: terminal session "${ghost}" belongs to replica "replica7"`,
      );
      expect(text).toContain('Start a new session with terminal.create');
      texts.add(text.replace(/reached replica "replica[12]"/, 'reached replica "?"'));
    }
    // Not routed anywhere in particular (round robin), and the same answer from both.
    expect(servedBy).toEqual(new Set(['replica1', 'replica2']));
    expect(texts.size).toBe(1);
  });

  it('keeps a 2025-11-25 session on its replica whatever Mcp-Param-Handle names', async () => {
    const session = await openSession(mcp, BOB);
    const home = /^(replica[12])\./.exec(session)?.[1];
    expect(home, session).toBeDefined();
    const away = home === 'replica1' ? 'replica2' : 'replica1';
    for (let call = 0; call < 4; call += 1) {
      const reply = await fetch(mcp, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${BOB}`,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
          'mcp-param-handle': `${away}.t-${randomHex()}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      });
      await reply.text();
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-toolsys-replica')).toBe(home);
    }
  });

  it('routes nothing by a handle-like header on a call whose tool takes no handle', async () => {
    const servedBy = new Set<string>();
    for (let call = 0; call < 4; call += 1) {
      const reply = await postModernCall(
        mcp,
        'terminal_backends',
        {},
        { token: BOB, headers: { 'mcp-param-handle': `replica9.t-${randomHex()}` } },
      );
      expect(bodyOf(reply).result?.isError ?? false).toBe(false);
      servedBy.add(reply.headers.get('x-toolsys-replica') ?? '');
    }
    expect(servedBy).toEqual(new Set(['replica1', 'replica2']));
  });
});
