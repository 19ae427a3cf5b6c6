import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import {
  composeDeployment,
  createOAuthResource,
  type Deployment,
  type HttpServer,
  resolveDeploymentConfig,
  scopedConfirm,
  serveHttp,
  ToolHost,
} from '@toolsys/host';
import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/authorization-server.js';
import { callMessage, openSession, post, textOf } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: the HTTP server is an OAuth 2.1 protected resource. A real authorization server
// (oidc-provider on loopback) issues the tokens; forged ones are built with jose.

const PUBLIC_URL = 'https://tools.example.test';
const AUDIENCE = `${PUBLIC_URL}/mcp`;
const SCOPES = ['tools:read', 'tools:write', 'tools:admin'];

let scratch: string;
let issuer: AuthorizationServer;
let deployment: Deployment;
let server: HttpServer;

/** A token with these claims signed by a key the issuer never published. */
async function foreignToken(claims: Record<string, unknown>): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'test-es256', typ: 'at+jwt' })
    .sign(privateKey);
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-auth-'));
  issuer = await startAuthorizationServer({ audience: AUDIENCE, scopes: SCOPES });
  mkdirSync(join(scratch, 'workspace'), { recursive: true });
  const resolved = resolveDeploymentConfig(
    { workspaceRoot: join(scratch, 'workspace'), dataDir: join(scratch, 'data') },
    { cwd: scratch, env: {} },
  );
  deployment = await composeDeployment(resolved, {
    packages: [corePackage, riskProbePackage],
    confirm: scopedConfirm,
  });
  const auth = createOAuthResource({
    issuer: issuer.issuer,
    audience: AUDIENCE,
    publicUrl: PUBLIC_URL,
  });
  server = await serveHttp(new ToolHost(deployment, { warn: () => {} }), { port: 0, auth });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await deployment?.close();
  await issuer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the HTTP server is an OAuth protected resource', { timeout: 60_000 }, () => {
  it('serves RFC 9728 metadata at the root and the path-suffixed well-known URL', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: AUDIENCE,
        authorization_servers: [issuer.issuer],
        scopes_supported: SCOPES,
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('answers a request without a token 401 with the metadata URL and the scope', async () => {
    const reply = await post(server.mcpUrl, callMessage('probe_low'));
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp", scope="tools:read"`,
    );
  });

  it('refuses the dashboard without a token as well', async () => {
    const response = await fetch(`${server.url}/api/calls`);
    expect(response.status).toBe(401);
  });

  it('refuses expired, wrong-audience, wrong-issuer, alg none, HS256 and foreign-key tokens with 401 invalid_token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = { sub: 'mallory', scope: 'tools:admin', iss: issuer.issuer, aud: AUDIENCE };
    const real = await issuer.issue('alice', ['tools:read']);
    const [header = '', payload = ''] = real.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const hmac = new TextEncoder().encode('x'.repeat(32));
    const bad: Record<string, string> = {
      expired: await issuer.sign({ ...good, iat: now - 900, exp: now - 120 }),
      notYetValid: await issuer.sign({ ...good, nbf: now + 600, exp: now + 900 }),
      wrongAudience: await issuer.sign({
        ...good,
        aud: 'https://other.example.test/mcp',
        exp: now + 600,
      }),
      wrongIssuer: await issuer.sign({ ...good, iss: `${issuer.issuer}/other`, exp: now + 600 }),
      noExpiry: await issuer.sign(good),
      algNone: new UnsecuredJWT({ ...good, exp: now + 600 }).encode(),
      hs256: await new SignJWT({ ...good, exp: now + 600 })
        .setProtectedHeader({ alg: 'HS256', kid: 'test-es256' })
        .sign(hmac),
      foreignKey: await foreignToken({ ...good, exp: now + 600 }),
      // The issuer's real signature over claims that were changed afterwards.
      tampered: `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'tools:admin' })).toString('base64url')}.${real.split('.')[2]}`,
      garbage: 'not-a-jwt',
    };
    for (const [name, token] of Object.entries(bad)) {
      const reply = await post(server.mcpUrl, callMessage('probe_low'), token);
      expect({ name, status: reply.status }).toEqual({ name, status: 401 });
      expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(reply.headers.get('www-authenticate')).toContain('resource_metadata="');
      expect(JSON.stringify(reply.body)).not.toContain(token || '\u0000');
    }
  });

  it('runs a LOW tool with tools:read and answers 403 insufficient_scope naming tools:write for a MEDIUM one', async () => {
    const token = await issuer.issue('alice', ['tools:read']);
    const session = await openSession(server.mcpUrl, token);
    const low = await post(server.mcpUrl, callMessage('probe_low'), token, session);
    expect(low.status).toBe(200);
    expect(textOf(low)).toBe('ran');
    const medium = await post(server.mcpUrl, callMessage('probe_medium'), token, session);
    expect(medium.status).toBe(403);
    expect(medium.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="tools:write", resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('does not let tool_call reach a MEDIUM tool with a tools:read token', async () => {
    const token = await issuer.issue('alice', ['tools:read']);
    const session = await openSession(server.mcpUrl, token);
    const reply = await post(
      server.mcpUrl,
      callMessage('tool_call', { id: 'probe_high', arguments: {} }),
      token,
      session,
    );
    expect(reply.status).toBe(403);
    expect(reply.headers.get('www-authenticate')).toContain('scope="tools:admin"');
  });

  it('checks every call of a batch', async () => {
    const token = await issuer.issue('alice', ['tools:read']);
    const session = await openSession(server.mcpUrl, token);
    const reply = await post(
      server.mcpUrl,
      [callMessage('probe_low'), { ...callMessage('probe_medium'), id: 8 }],
      token,
      session,
    );
    expect(reply.status).toBe(403);
  });

  it('lets a tools:write token go on as the permission policy says (MEDIUM asks, and this client cannot answer)', async () => {
    const token = await issuer.issue('bob', ['tools:read', 'tools:write']);
    const session = await openSession(server.mcpUrl, token);
    expect(textOf(await post(server.mcpUrl, callMessage('probe_low'), token, session))).toBe('ran');
    const medium = await post(server.mcpUrl, callMessage('probe_medium'), token, session);
    expect(medium.status).toBe(200);
    expect(textOf(medium)).toContain('PERMISSION_DENIED');
    const high = await post(server.mcpUrl, callMessage('probe_high'), token, session);
    expect(high.status).toBe(403);
    expect(high.headers.get('www-authenticate')).toContain('scope="tools:admin"');
  });

  it("gives tools the token's subject, client and scopes as the call's principal", async () => {
    const token = await issuer.issue('alice', ['tools:read']);
    const session = await openSession(server.mcpUrl, token);
    const reply = await post(server.mcpUrl, callMessage('probe_whoami'), token, session);
    expect(JSON.parse(textOf(reply))).toEqual({
      id: 'alice',
      kind: 'oauth',
      clientId: 'test-client',
      scopes: ['tools:read'],
    });
    const span = deployment.stack.traces
      .spans()
      .filter((entry) => entry.toolId === 'probe_whoami')
      .at(-1);
    expect(span?.principal).toBe('alice');
  });

  it('answers 404 to another principal presenting a session id, as for an unknown session', async () => {
    const alice = await issuer.issue('alice', ['tools:read', 'tools:write']);
    const bob = await issuer.issue('bob', ['tools:read', 'tools:write']);
    const aliceSession = await openSession(server.mcpUrl, alice);
    const stolen = await post(server.mcpUrl, callMessage('probe_low'), bob, aliceSession);
    expect(stolen.status).toBe(404);
    const unknown = await post(
      server.mcpUrl,
      callMessage('probe_low'),
      bob,
      `${aliceSession.slice(0, -4)}0000`,
    );
    expect(unknown.status).toBe(404);
    expect((stolen.body as { error: unknown }).error).toEqual(
      (unknown.body as { error: unknown }).error,
    );
    const ended = await fetch(server.mcpUrl, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${bob}`, 'mcp-session-id': aliceSession },
    });
    expect(ended.status).toBe(404);
    // Alice's session is still hers.
    expect(textOf(await post(server.mcpUrl, callMessage('probe_low'), alice, aliceSession))).toBe(
      'ran',
    );
  });

  it('shows a token without the highest scope its own dashboard view, and the form only to an operator', async () => {
    const reader = await issuer.issue('alice', ['tools:read', 'tools:write']);
    const admin = await issuer.issue('carol', ['tools:admin']);
    const own = await fetch(`${server.url}/api/overview`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(own.status).toBe(200);
    const ownView = (await own.json()) as { viewer: unknown; states?: unknown };
    expect(ownView.viewer).toEqual({ principal: 'oauth:alice', isOperator: false });
    expect(ownView.states).toBeUndefined();
    const refused = await fetch(`${server.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
      body: '{"tool":"probe_low"}',
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('scope="tools:admin"');
    const operator = await fetch(`${server.url}/api/overview`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(((await operator.json()) as { viewer: unknown }).viewer).toEqual({
      principal: 'oauth:carol',
      isOperator: true,
    });
  });
});

describe('issuer and key checks', { timeout: 60_000 }, () => {
  it('refuses an http: issuer off loopback and accepts it on loopback', () => {
    expect(() =>
      createOAuthResource({
        issuer: 'http://idp.example.test/',
        audience: AUDIENCE,
        publicUrl: PUBLIC_URL,
      }),
    ).toThrow(/https: URL/);
    expect(() =>
      createOAuthResource({ issuer: issuer.issuer, audience: AUDIENCE, publicUrl: PUBLIC_URL }),
    ).not.toThrow();
  });
});
