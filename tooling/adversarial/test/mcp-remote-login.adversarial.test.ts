// A remote MCP server behind a real authorization server (oidc-provider), imported from a
// `.vscode/mcp.json`: `toolsys mcp login` signs in (the browser step driven through
// oidc-provider's login and consent pages), the deployment calls its tools with the stored
// token, a restarted deployment uses it (refreshed once expired) without asking again, and
// another principal cannot use the sign-in. Token files are readable by their owner only.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallPrincipal, ConfirmFunction } from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { createOAuthResource, type HttpServer, serveHttp } from '@toolsys/host';
import { toolPackage as mcpClientPackage, oauthStoreOf } from '@toolsys/mcp-client';
import { freePort } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './support/authorization-server.js';
import { deployHost, type HostDeployment } from './support/host.js';
import { signInAtIssuer } from './support/issuer-sign-in.js';
import { type ComposedMcpClient, composeMcpClient } from './support/mcp-client-package.js';
import { runToolsys } from './support/toolsys-cli.js';

let scratch: string;
let dataDir: string;
let configFile: string;
let issuer: AuthorizationServer;
let remote: HostDeployment;
let server: HttpServer;
let loginPort: number;
let signIns = 0;
const composed: ComposedMcpClient[] = [];

const approve: ConfirmFunction = async () => 'allow_session';

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-mcp-login-'));
  dataDir = join(scratch, 'data');
  loginPort = await freePort();
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const url = `${publicUrl}/mcp`;
  issuer = await startAuthorizationServer({
    audience: url,
    scopes: ['tools:read'],
    publicClient: {
      clientId: 'toolsys-cli',
      redirectUri: `http://127.0.0.1:${loginPort}/callback`,
      refreshTokens: true,
    },
  });
  remote = await deployHost(join(scratch, 'remote'));
  server = await serveHttp(remote.host, {
    port,
    auth: createOAuthResource({ issuer: issuer.issuer, audience: url, publicUrl }),
    publicUrl,
  });
  // What a cloned repository carries, and the deployment that imports it.
  mkdirSync(join(scratch, '.vscode'));
  writeFileSync(
    join(scratch, '.vscode', 'mcp.json'),
    JSON.stringify({
      servers: { remote: { type: 'http', url, oauth: { clientId: 'toolsys-cli' } } },
    }),
  );
  configFile = join(scratch, 'toolsys.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      workspaceRoot: '.',
      dataDir: './data',
      packages: { 'mcp-client': { importConfig: '.vscode/mcp.json' } },
    }),
  );
}, 60_000);

afterAll(async () => {
  for (const client of composed.splice(0)) await client.dispose();
  await server?.close();
  await issuer?.close();
  await remote?.deployment.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function deploy(registerRemoteTools = false): Promise<ComposedMcpClient> {
  const client = await composeMcpClient(scratch, dataDir, {
    importConfig: '.vscode/mcp.json',
    registerRemoteTools,
  });
  composed.push(client);
  return client;
}

async function callRemote(client: ComposedMcpClient, principal?: CallPrincipal) {
  return client.executor.execute(
    'mcp_call',
    { server: 'remote', tool: 'calculate', arguments: { expression: '6*7' } },
    { sessionId: `s-${Math.random()}`, confirm: approve, ...(principal ? { principal } : {}) },
  );
}

/** `toolsys mcp login remote`, the browser step done as a person would (unless `abandon`). */
function login(options: { timeoutSeconds?: number; abandon?: boolean } = {}) {
  let driven = false;
  return runToolsys(
    [
      'mcp',
      'login',
      'remote',
      '--port',
      String(loginPort),
      '--no-browser',
      '--timeout',
      String(options.timeoutSeconds ?? 30),
      '--config',
      configFile,
    ],
    {
      onStderr: (text) => {
        const url = /^ {2}(http\S+)$/m.exec(text)?.[1];
        if (url === undefined || driven || options.abandon) return;
        driven = true;
        signIns += 1;
        void signInAtIssuer(url, 'dana', `http://127.0.0.1:${loginPort}/callback`).then((back) =>
          fetch(back),
        );
      },
    },
  );
}

describe('toolsys mcp login against a server behind oidc-provider', { timeout: 90_000 }, () => {
  it('before sign-in: the call, status and doctor say so in one actionable line', async () => {
    const client = await deploy();
    const result = await callRemote(client);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toBe(
      'MCP server "remote" needs sign-in: run `toolsys mcp login remote`.',
    );
    const status = await runToolsys(['mcp', 'status', '--config', configFile]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('needs sign-in: run `toolsys mcp login remote`');
    const doctorLine = (await deploy()).reason;
    expect(doctorLine).toContain('server "remote" needs sign-in: run `toolsys mcp login remote`');
  });

  it('a sign-in nobody completes ends clearly at the time limit', async () => {
    const run = await login({ timeoutSeconds: 2, abandon: true });
    expect(run.code).toBe(1);
    // One sign-in asked for, no fallback to another transport asking again.
    expect(run.stderr.split('To sign in to MCP server "remote", open this URL:')).toHaveLength(2);
    expect(run.stderr).toContain(
      'Sign-in to MCP server "remote" did not finish: no sign-in completed within 2 s.',
    );
    expect((await oauthStoreOf(dataDir, 'local:local', 'remote').load()).tokens).toBeUndefined();
  });

  it('signs in with the CLI; a running deployment lists the tools, a new one calls them', async () => {
    // A deployment already running, whose call asked for the sign-in.
    const running = await deploy(true);
    expect((await callRemote(running)).ok).toBe(false);
    expect(running.registry.get('mcp__remote__calculate')).toBeUndefined();
    const run = await login();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Signed in to MCP server "remote"; it lists \d+ tool\(s\)\./);
    expect(signIns).toBe(1);
    const file = oauthStoreOf(dataDir, 'local:local', 'remote').path;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Nothing the CLI printed carries the token.
    const { tokens } = await oauthStoreOf(dataDir, 'local:local', 'remote').load();
    expect(tokens?.access_token).toBeTruthy();
    expect(run.stdout + run.stderr).not.toContain(tokens?.access_token as string);

    const client = await deploy();
    const result = await callRemote(client);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(result.ok && result.content).toContain('42');
    expect(JSON.stringify(result)).not.toContain(tokens?.access_token as string);
    // The running deployment noticed the sign-in: its tools appeared (tools/list_changed).
    await expect
      .poll(() => running.registry.get('mcp__remote__calculate') !== undefined, {
        timeout: 15_000,
        interval: 250,
      })
      .toBe(true);
  });

  it('after a restart, refreshes the expired token without asking again', async () => {
    const store = oauthStoreOf(dataDir, 'local:local', 'remote');
    const before = await store.load();
    await store.save({ ...before, expiresAt: Date.now() - 1_000 });
    const client = await deploy();
    const result = await callRemote(client);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const after = await store.load();
    expect(after.tokens?.access_token).not.toBe(before.tokens?.access_token);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
    expect(signIns).toBe(1);
    const status = await runToolsys(['mcp', 'status', '--json', '--config', configFile]);
    expect(status.stdout).not.toContain(after.tokens?.access_token as string);
    expect(JSON.parse(status.stdout).servers[0].signIn.state).toBe('signed-in');
  });

  it("another principal cannot use the local user's sign-in", async () => {
    const client = await deploy();
    expect((await callRemote(client)).ok).toBe(true);
    const result = await callRemote(client, { kind: 'token', id: 'bob', scopes: ['*'] });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toContain('needs sign-in');
  });

  it('logout deletes the stored tokens', async () => {
    const run = await runToolsys(['mcp', 'logout', 'remote', '--config', configFile]);
    expect(run.code).toBe(0);
    expect((await oauthStoreOf(dataDir, 'local:local', 'remote').load()).tokens).toBeUndefined();
  });

  it('signs in from the dashboard, on loopback only, for the viewer alone', async () => {
    const url = `${new URL(server.url).origin}/mcp`;
    const dash = await deployHost(join(scratch, 'dash'), {
      packages: [corePackage, mcpClientPackage],
      config: {
        packages: {
          'mcp-client': {
            servers: {
              remote: {
                type: 'http',
                url,
                oauth: { clientId: 'toolsys-cli', redirectPort: loginPort },
              },
            },
          },
        },
      },
    });
    const served = await serveHttp(dash.host, { host: '127.0.0.1', port: 0 });
    try {
      const post = (body: unknown) =>
        fetch(`${served.url}/api/mcp/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await post({ server: 'nowhere' })).status).toBe(404);
      expect((await post({ server: 42 })).status).toBe(400);
      const started = await post({ server: 'remote' });
      expect(started.status).toBe(200);
      const { url: authorizationUrl } = (await started.json()) as { url: string };
      expect(new URL(authorizationUrl).origin).toBe(new URL(issuer.issuer).origin);
      // A second click while it is under way gets the same sign-in, not a second one.
      const again = (await (await post({ server: 'remote' })).json()) as { url: string };
      expect(again.url).toBe(authorizationUrl);
      const back = await signInAtIssuer(
        authorizationUrl,
        'dana',
        `http://127.0.0.1:${loginPort}/callback`,
      );
      await fetch(back);
      const store = oauthStoreOf(join(scratch, 'dash', 'data'), 'local:local', 'remote');
      await expect
        .poll(async () => (await store.load()).tokens?.access_token !== undefined, {
          timeout: 15_000,
          interval: 250,
        })
        .toBe(true);
      const listing = await (await fetch(`${served.url}/api/mcp/servers`)).text();
      expect(listing).not.toContain((await store.load()).tokens?.access_token as string);
      expect(JSON.parse(listing).servers[0].signIn.state).toBe('signed-in');
    } finally {
      await served.close();
      await dash.deployment.close();
    }
  });
});
