import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOAuthResource, type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/authorization-server.js';
import { deployHost, type HostDeployment } from './support/host.js';
import { signInAtIssuer } from './support/issuer-sign-in.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: the dashboard off loopback (or behind tokens or OAuth) needs sign-in: a named token,
// or authorization code + PKCE against the configured issuer (a real oidc-provider here), then a
// session cookie (HttpOnly, SameSite=Strict) whose POSTs need the sign-in's CSRF value.

const PUBLIC_URL = 'http://127.0.0.1:1';
const AUDIENCE = `${PUBLIC_URL}/mcp`;
const REDIRECT_URI = `${PUBLIC_URL}/auth/callback`;
const OPS = 'ops-secret-0123456789abcdef0123456789ab';

let scratch: string;
let issuer: AuthorizationServer;
let deployed: HostDeployment;
let server: HttpServer;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-sign-in-'));
  issuer = await startAuthorizationServer({
    audience: AUDIENCE,
    scopes: ['tools:read', 'tools:write', 'tools:admin'],
    publicClient: { clientId: 'dashboard', redirectUri: REDIRECT_URI },
  });
  deployed = await deployHost(scratch, { packages: [riskProbePackage], confirm: scopedConfirm });
  server = await serveHttp(deployed.host, {
    port: 0,
    auth: createOAuthResource({ issuer: issuer.issuer, audience: AUDIENCE, publicUrl: PUBLIC_URL }),
    tokens: [{ name: 'ops', token: OPS }],
    publicUrl: PUBLIC_URL,
    dashboardClientId: 'dashboard',
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await issuer?.close();
  await deployed?.deployment.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The name=value of a Set-Cookie named `name`, and its whole line. */
function cookieOf(response: Response, name: string): { pair: string; line: string } | undefined {
  const line = response.headers.getSetCookie().find((entry) => entry.startsWith(`${name}=`));
  return line === undefined ? undefined : { pair: line.split(';')[0] ?? '', line };
}

/** What the overview says about its viewer. */
interface Viewer {
  readonly principal: string;
  readonly isOperator: boolean;
  readonly csrf?: string;
}

async function overviewWith(cookie: string) {
  const reply = await fetch(`${server.url}/api/overview`, { headers: { cookie } });
  return {
    status: reply.status,
    body: reply.ok ? ((await reply.json()) as { viewer: Viewer }) : undefined,
  };
}

async function signInWithToken(token: string): Promise<Response> {
  return fetch(`${server.url}/auth/token`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
}

describe('dashboard sign-in', { timeout: 60_000 }, () => {
  it('answers a visitor without credentials with the sign-in page, and the API with 401', async () => {
    const page = await fetch(server.dashboardUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="sign-in-token"');
    expect(html).toContain('href="/auth/login"');
    expect(html).not.toContain('call-form');
    expect((await fetch(`${server.url}/api/overview`)).status).toBe(401);
  });

  it('signs in with a named token into an HttpOnly SameSite=Strict cookie; a wrong token gets none', async () => {
    const wrong = await signInWithToken(`${OPS}x`);
    expect(wrong.status).toBe(401);
    expect(cookieOf(wrong, 'toolsys_dashboard')).toBeUndefined();
    const signed = await signInWithToken(OPS);
    expect(signed.status).toBe(303);
    const cookie = cookieOf(signed, 'toolsys_dashboard');
    expect(cookie?.line).toMatch(/; HttpOnly; SameSite=Strict$/);
    const overview = await overviewWith(cookie?.pair ?? '');
    expect(overview.body?.viewer).toMatchObject({ principal: 'token:ops', isOperator: true });
    expect(overview.body?.viewer.csrf).toMatch(/^[\w-]{43}$/);
  });

  it('refuses a cookie POST without the CSRF value of its sign-in, and runs it with', async () => {
    const cookie = cookieOf(await signInWithToken(OPS), 'toolsys_dashboard')?.pair ?? '';
    const csrf = (await overviewWith(cookie)).body?.viewer.csrf ?? '';
    const other = (
      await overviewWith(cookieOf(await signInWithToken(OPS), 'toolsys_dashboard')?.pair ?? '')
    ).body?.viewer.csrf;
    expect(other).toBeDefined();
    const call = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/call`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ tool: 'probe_whoami' }),
      });
    expect((await call({})).status).toBe(403);
    expect((await call({ 'x-toolsys-csrf': other ?? '' })).status).toBe(403);
    const allowed = await call({ 'x-toolsys-csrf': csrf });
    expect(allowed.status).toBe(200);
    const { result } = (await allowed.json()) as { result: { content: string } };
    expect(JSON.parse(result.content)).toMatchObject({ id: 'ops', kind: 'token' });
  });

  it('signs in with authorization code + PKCE at the issuer, as the subject who logged in there', async () => {
    const start = await fetch(`${server.url}/auth/login`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(authorize.origin).toBe(issuer.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    const login = cookieOf(start, 'toolsys_dashboard_login');
    expect(login?.line).toContain('SameSite=Lax');
    const back = await signInAtIssuer(authorize.href, 'dana', REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(authorize.searchParams.get('state'));
    const callback = await fetch(`${server.url}/auth/callback${back.search}`, {
      headers: { cookie: login?.pair ?? '' },
    });
    expect(callback.status).toBe(200);
    const session = cookieOf(callback, 'toolsys_dashboard');
    expect(session?.line).toMatch(/; HttpOnly; SameSite=Strict$/);
    const overview = await overviewWith(session?.pair ?? '');
    expect(overview.body?.viewer).toMatchObject({ principal: 'oauth:dana' });

    // The same return again (a replayed code and state) signs nobody in.
    const replay = await fetch(`${server.url}/auth/callback${back.search}`, {
      headers: { cookie: login?.pair ?? '' },
    });
    expect(replay.status).toBe(401);
    expect(cookieOf(replay, 'toolsys_dashboard')).toBeUndefined();
  });

  it('refuses a return whose state this browser did not start (login CSRF)', async () => {
    const victim = await fetch(`${server.url}/auth/login`, { redirect: 'manual' });
    const authorize = new URL(victim.headers.get('location') ?? '');
    const back = await signInAtIssuer(authorize.href, 'mallory', REDIRECT_URI);
    // The attacker's code and state reach another browser, which has no (or another) login cookie.
    const attacker = await fetch(`${server.url}/auth/login`, { redirect: 'manual' });
    for (const cookie of ['', cookieOf(attacker, 'toolsys_dashboard_login')?.pair ?? '']) {
      const reply = await fetch(`${server.url}/auth/callback${back.search}`, {
        headers: { cookie },
      });
      expect(reply.status).toBe(401);
      expect(cookieOf(reply, 'toolsys_dashboard')).toBeUndefined();
    }
  });

  it('does not take a forged session cookie', async () => {
    const forged = await overviewWith(
      'toolsys_dashboard=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    );
    expect(forged.status).toBe(401);
  });

  it("signs out only with the sign-in's CSRF value, and the cookie is dead afterwards", async () => {
    const cookie = cookieOf(await signInWithToken(OPS), 'toolsys_dashboard')?.pair ?? '';
    const csrf = (await overviewWith(cookie)).body?.viewer.csrf ?? '';
    const logout = (headers: Record<string, string>) =>
      fetch(`${server.url}/auth/logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, ...headers },
      });
    await logout({});
    expect((await overviewWith(cookie)).status).toBe(200);
    const out = await logout({ 'x-toolsys-csrf': csrf });
    expect(out.status).toBe(303);
    expect(cookieOf(out, 'toolsys_dashboard')?.line).toContain('Max-Age=0');
    expect((await overviewWith(cookie)).status).toBe(401);
  });
});
