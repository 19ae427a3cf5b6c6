import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { createOAuthResource, type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/authorization-server.js';
import { deployHost, type HostDeployment } from './support/host.js';
import { callMessage, openSession, post } from './support/mcp-http-calls.js';
import { riskProbePackage } from './support/risk-probe.js';

// Issue 32: opaque access tokens are checked by RFC 7662 introspection against a real
// authorization server (oidc-provider on loopback).

const PUBLIC_URL = 'https://tools.example.test';
const AUDIENCE = `${PUBLIC_URL}/mcp`;
const SCOPES = ['tools:read', 'tools:write', 'tools:admin'];

let scratch: string;
let issuer: AuthorizationServer;
let setup: HostDeployment;
let server: HttpServer;

async function serveWith(introspection: { endpoint?: string; clientSecret?: string }) {
  const auth = createOAuthResource({
    issuer: issuer.issuer,
    audience: AUDIENCE,
    publicUrl: PUBLIC_URL,
    introspection: {
      clientId: issuer.introspector.clientId,
      clientSecret: introspection.clientSecret ?? issuer.introspector.clientSecret,
      ...(introspection.endpoint ? { endpoint: introspection.endpoint } : {}),
    },
  });
  return serveHttp(setup.host, { port: 0, auth });
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-introspect-'));
  issuer = await startAuthorizationServer({ audience: AUDIENCE, scopes: SCOPES });
  setup = await deployHost(scratch, {
    packages: [corePackage, riskProbePackage],
    confirm: scopedConfirm,
  });
  server = await serveWith({});
}, 60_000);

afterAll(async () => {
  await server?.close();
  await setup?.deployment.close();
  await issuer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('opaque access tokens, by introspection', { timeout: 60_000 }, () => {
  it('accepts an active token, with its subject, client and scopes', async () => {
    const token = await issuer.issueOpaque('carol', ['tools:read'], { audience: AUDIENCE });
    expect(token).not.toContain('.');
    const session = await openSession(server.mcpUrl, token);
    const who = await post(server.mcpUrl, callMessage('probe_whoami'), token, session);
    const text = (who.body as { result: { content: { text: string }[] } }).result.content[0]?.text;
    expect(JSON.parse(text ?? '')).toEqual({
      id: 'carol',
      kind: 'oauth',
      clientId: 'test-client',
      scopes: ['tools:read'],
    });
    const medium = await post(server.mcpUrl, callMessage('probe_medium'), token, session);
    expect(medium.status).toBe(403);
  });

  it('refuses a revoked, an expired, an unknown and a foreign-audience token with 401', async () => {
    const revoked = await issuer.issueOpaque('dave', ['tools:read'], { audience: AUDIENCE });
    await issuer.revoke(revoked);
    const expired = await issuer.issueOpaque('dave', ['tools:read'], {
      audience: AUDIENCE,
      expiresIn: 1,
    });
    const foreign = await issuer.issueOpaque('dave', ['tools:read'], {
      audience: 'https://other.example.test/mcp',
    });
    // Past the token's exp and the skew the server tolerates on it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const cases = { revoked, unknown: 'x'.repeat(43), foreign };
    for (const [name, token] of Object.entries(cases)) {
      const reply = await post(server.mcpUrl, callMessage('probe_low'), token);
      expect({ name, status: reply.status }).toEqual({ name, status: 401 });
      expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    const late = await post(server.mcpUrl, callMessage('probe_low'), expired);
    expect(late.status).toBe(401);
    expect(late.headers.get('www-authenticate')).toContain('not active');
  });

  it('refuses every opaque token when its own client secret is wrong', async () => {
    const wrong = await serveWith({ clientSecret: 'not-the-secret' });
    try {
      const token = await issuer.issueOpaque('erin', ['tools:read'], { audience: AUDIENCE });
      const reply = await post(wrong.mcpUrl, callMessage('probe_low'), token);
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toContain('introspection failed');
    } finally {
      await wrong.close();
    }
  });

  it('answers 401 at once when the introspection endpoint is down, and within its timeout when it hangs', async () => {
    const hanging: Server = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/introspect`;
    const down = await serveWith({ endpoint: 'http://127.0.0.1:9/introspect' });
    const slow = await serveWith({ endpoint: hangingUrl });
    try {
      const token = await issuer.issueOpaque('frank', ['tools:read'], { audience: AUDIENCE });
      const refused = await post(down.mcpUrl, callMessage('probe_low'), token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('try again shortly');
      const started = Date.now();
      const timedOut = await post(slow.mcpUrl, callMessage('probe_low'), token);
      expect(timedOut.status).toBe(401);
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await down.close();
      await slow.close();
      hanging.closeAllConnections();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  });
});
