// A remote MCP server behind a real authorization server (oidc-provider): the client signs in
// through the loopback redirect (the browser step driven through oidc-provider's login and
// consent pages), calls the server's tools, and a later connection uses the stored token — and
// refreshes it once expired — without a sign-in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOAuthResource, type HttpServer, serveHttp } from '@toolsys/host';
import { FileOAuthStore, LoopbackRedirect, McpClient, McpOAuthProvider } from '@toolsys/mcp-client';
import { freePort } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/authorization-server.js';
import { deployHost, type HostDeployment } from './support/host.js';
import { signInAtIssuer } from './support/issuer-sign-in.js';

let scratch: string;
let issuer: AuthorizationServer;
let deployed: HostDeployment;
let server: HttpServer;
let redirect: LoopbackRedirect;
let url: string;
let signIns = 0;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-mcp-oauth-'));
  redirect = await LoopbackRedirect.start({
    show: (authorizationUrl) => {
      signIns += 1;
      // The browser: log in and consent at the issuer, then follow the redirect back.
      void signInAtIssuer(authorizationUrl.href, 'dana', redirect.redirectUrl).then((back) =>
        fetch(back),
      );
    },
    timeoutMs: 20_000,
  });
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  url = `${publicUrl}/mcp`;
  issuer = await startAuthorizationServer({
    audience: url,
    scopes: ['tools:read', 'tools:write', 'tools:admin'],
    publicClient: {
      clientId: 'toolsys-cli',
      redirectUri: redirect.redirectUrl,
      refreshTokens: true,
    },
  });
  deployed = await deployHost(scratch);
  server = await serveHttp(deployed.host, {
    port,
    auth: createOAuthResource({ issuer: issuer.issuer, audience: url, publicUrl }),
    publicUrl,
  });
}, 60_000);

afterAll(async () => {
  await redirect?.close();
  await server?.close();
  await issuer?.close();
  await deployed?.deployment.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function connect(interactive: boolean, now?: () => number): McpClient {
  return new McpClient(
    { name: 'remote', transport: 'streamable-http', url },
    {
      oauth: () =>
        new McpOAuthProvider({
          server: 'remote',
          serverUrl: url,
          store: FileOAuthStore.under(join(scratch, 'data', 'mcp-oauth'), 'local', 'remote'),
          settings: { clientId: 'toolsys-cli' },
          ...(interactive
            ? { redirectUrl: redirect.redirectUrl, authorize: redirect.authorize }
            : {}),
          ...(now ? { now } : {}),
        }),
    },
  );
}

describe('signing in to a remote MCP server behind oidc-provider', () => {
  it('fails without a sign-in, with one line naming the login command', async () => {
    const client = connect(false);
    await expect(client.connect({ timeoutMs: 10_000 })).rejects.toThrow(
      'MCP server "remote" needs sign-in: run `toolsys mcp login remote`.',
    );
    await client.close();
    expect(signIns).toBe(0);
  });

  it('signs in through the loopback redirect and calls the tools', async () => {
    const client = connect(true);
    await client.connect({ timeoutMs: 20_000 });
    const tools = await client.listTools({ timeoutMs: 10_000 });
    expect(tools.length).toBeGreaterThan(0);
    expect(signIns).toBe(1);
    await client.close();
  }, 30_000);

  it('after a restart, uses the stored token without asking again', async () => {
    const client = connect(false);
    await client.connect({ timeoutMs: 10_000 });
    expect((await client.listTools({ timeoutMs: 10_000 })).length).toBeGreaterThan(0);
    await client.close();
    expect(signIns).toBe(1);
  });

  it('refreshes an expired token with the stored refresh token, without asking', async () => {
    const store = FileOAuthStore.under(join(scratch, 'data', 'mcp-oauth'), 'local', 'remote');
    const before = await store.load();
    expect(before.tokens?.refresh_token).toBeDefined();
    // An hour later, the access token (10 minutes) has expired.
    const client = connect(false, () => Date.now() + 3_600_000);
    await client.connect({ timeoutMs: 10_000 });
    expect((await client.listTools({ timeoutMs: 10_000 })).length).toBeGreaterThan(0);
    await client.close();
    expect((await store.load()).tokens?.access_token).not.toBe(before.tokens?.access_token);
    expect(signIns).toBe(1);
  });
});
