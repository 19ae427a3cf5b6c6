import { createServer, type Server } from 'node:http';
import {
  CSRF_HEADER,
  createDashboardAccess,
  DeploymentKey,
  type Principal,
  RedisRevocations,
  SealedDashboardSignIns,
} from '@toolsys/host';
import { RedisConnection } from '@toolsys/state-redis';
import { listenOnLoopback, type RedisProcess, startRedis } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 32: a dashboard sign-in is a sealed cookie. It holds on any replica that shares the
// deployment key and survives a replica's restart; a sign-out on one replica ends it on every
// replica (through a real Redis); nobody without the key can forge, alter or replay it as anyone
// else.

const ALICE = 'sealed-alice-secret-0123456789abcdef012';
const BOB = 'sealed-bob-secret-0123456789abcdef01234';
const TOKENS: Record<string, Principal> = {
  [ALICE]: { id: 'alice', kind: 'token', scopes: ['tools:read'] },
  [BOB]: { id: 'bob', kind: 'token', scopes: ['*'] },
};

interface Replica {
  readonly url: string;
  readonly server: Server;
  readonly connection: RedisConnection;
}

let redis: RedisProcess;
const key = DeploymentKey.generate();
const replicas: Replica[] = [];

/** One replica: the dashboard's sign-in in front of a page that says who is viewing. */
async function startReplica(withKey: DeploymentKey = key): Promise<Replica> {
  const connection = new RedisConnection({ url: redis.url, keyPrefix: 'sealed-test:' });
  await connection.waitUntilShared(5_000);
  const access = createDashboardAccess({
    required: true,
    tokenPrincipal: (token) => TOKENS[token],
    secureCookies: false,
    sessions: new SealedDashboardSignIns({
      key: withKey,
      revocations: new RedisRevocations(connection),
    }),
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    void access
      .visitor(request, response, url, async () => undefined)
      .then((visitor) => {
        if (visitor === undefined) {
          if (!response.headersSent) {
            response.writeHead(401);
            response.end();
          }
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ principal: visitor.principal, csrf: visitor.csrf }));
      });
  });
  const port = await listenOnLoopback(server);
  const replica = { url: `http://127.0.0.1:${port}`, server, connection };
  replicas.push(replica);
  return replica;
}

async function stopReplica(replica: Replica): Promise<void> {
  await new Promise((resolve) => replica.server.close(resolve));
  await replica.connection.close();
  replicas.splice(replicas.indexOf(replica), 1);
}

async function signIn(replica: Replica, token: string): Promise<string> {
  const response = await fetch(`${replica.url}/auth/token`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  expect(response.status).toBe(303);
  return response.headers.getSetCookie()[0]?.split(';')[0] ?? '';
}

async function view(replica: Replica, cookie: string) {
  const response = await fetch(`${replica.url}/api/overview`, { headers: { cookie } });
  if (response.status !== 200) return { status: response.status };
  return { status: 200, ...((await response.json()) as { principal: Principal; csrf: string }) };
}

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  for (const replica of [...replicas]) await stopReplica(replica);
  await redis?.stop();
});

describe('a sealed dashboard sign-in', () => {
  it('made on one replica holds on another, and after the first one restarts', async () => {
    const first = await startReplica();
    const second = await startReplica();
    const cookie = await signIn(first, ALICE);
    expect(cookie).toMatch(/^toolsys_dashboard=[A-Za-z0-9_-]+$/);
    const there = await view(second, cookie);
    expect(there).toMatchObject({ status: 200, principal: { id: 'alice', kind: 'token' } });
    await stopReplica(first);
    const restarted = await startReplica();
    expect(await view(restarted, cookie)).toMatchObject({
      status: 200,
      principal: { id: 'alice' },
    });
    // The same CSRF value on every replica: a POST from the page works wherever it lands.
    expect((await view(restarted, cookie)) as { csrf?: string }).toMatchObject({
      csrf: (there as { csrf?: string }).csrf,
    });
  });

  it('signed out on one replica is refused on every other', async () => {
    const [one, two] = [await startReplica(), await startReplica()];
    const cookie = await signIn(one, BOB);
    const { csrf } = (await view(two, cookie)) as { csrf: string };
    const out = await fetch(`${two.url}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, [CSRF_HEADER]: csrf },
    });
    expect(out.status).toBe(303);
    expect((await view(one, cookie)).status).toBe(401);
    expect((await view(two, cookie)).status).toBe(401);
    expect(await redis.cli('--scan', '--pattern', 'sealed-test:dashboard:signed-out:*')).not.toBe(
      '',
    );
  });

  it('cannot be signed out by a request without its CSRF value', async () => {
    const replica = await startReplica();
    const cookie = await signIn(replica, ALICE);
    await fetch(`${replica.url}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie },
    });
    expect((await view(replica, cookie)).status).toBe(200);
  });

  it('altered in any byte, sealed with another key, or made up, is no sign-in at all', async () => {
    const replica = await startReplica();
    const cookie = await signIn(replica, ALICE);
    const value = cookie.slice('toolsys_dashboard='.length);
    const bytes = Buffer.from(value, 'base64url');
    for (const index of [0, 13, 20, bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[index] = (flipped[index] ?? 0) ^ 1;
      expect(
        (await view(replica, `toolsys_dashboard=${flipped.toString('base64url')}`)).status,
      ).toBe(401);
    }
    const foreign = await startReplica(DeploymentKey.generate());
    const forged = await signIn(foreign, BOB);
    expect((await view(replica, forged)).status).toBe(401);
    expect((await view(replica, 'toolsys_dashboard=bob')).status).toBe(401);
    expect((await view(replica, 'toolsys_dashboard=')).status).toBe(401);
  });

  it('keeps alice alice: her cookie never views as bob, and carries her scopes only', async () => {
    const replica = await startReplica();
    const alice = await view(replica, await signIn(replica, ALICE));
    const bob = await view(replica, await signIn(replica, BOB));
    expect(alice).toMatchObject({ principal: { id: 'alice', scopes: ['tools:read'] } });
    expect(bob).toMatchObject({ principal: { id: 'bob', scopes: ['*'] } });
    expect((alice as { csrf: string }).csrf).not.toBe((bob as { csrf: string }).csrf);
  });
});
