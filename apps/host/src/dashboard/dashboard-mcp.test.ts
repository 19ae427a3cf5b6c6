import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { oauthStoreOf, ToolPins } from '@toolsys/mcp-client';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveDeploymentConfig } from '../config.js';
import type { ToolHost } from '../server/tool-host.js';
import { handleMcpDashboardRequest } from './dashboard-mcp.js';
import type { DashboardViewer } from './dashboard-viewer.js';

let dir: string;
let server: Server | undefined;
beforeEach(async () => {
  dir = await createTempDir('dashboard-mcp-');
});
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
  await removeTempDir(dir);
});

/** The MCP section served for `viewer` (only what it reads of the host is real: the config). */
async function serveFor(viewer: DashboardViewer): Promise<string> {
  const config = resolveDeploymentConfig(
    {
      workspaceRoot: '.',
      dataDir: './data',
      packages: {
        'mcp-client': {
          servers: { remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', pin: true } },
        },
      },
    },
    { cwd: dir, env: {} },
  );
  const host = { deployment: { config } } as unknown as ToolHost;
  const listening = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    void handleMcpDashboardRequest(host, request, response, url, viewer).then((handled) => {
      if (!handled) response.writeHead(404).end();
    });
  });
  server = listening;
  await new Promise<void>((done) => listening.listen(0, '127.0.0.1', () => done()));
  const pins = new ToolPins(`${config.dataDir}/mcp-pins`);
  await pins.check('remote', [
    { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } },
  ]);
  await pins.check('remote', [
    { name: 'echo', description: 'Changed.', inputSchema: { type: 'object' } },
  ]);
  await oauthStoreOf(config.dataDir, 'local:local', 'remote').save({
    tokens: { access_token: 'secret-access-token', token_type: 'Bearer' },
  });
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

const operator = {
  principal: { kind: 'local', id: 'local', scopes: ['*'] },
  isOperator: true,
} as unknown as DashboardViewer;
const alice = {
  principal: { kind: 'token', id: 'alice', scopes: [] },
  isOperator: false,
} as unknown as DashboardViewer;

describe('dashboard MCP section', () => {
  it("shows the viewer's own sign-in and the quarantine, never a token; operators approve", async () => {
    const base = await serveFor(operator);
    const text = await (await fetch(`${base}/api/mcp/servers`)).text();
    expect(text).not.toContain('secret-access-token');
    const body = JSON.parse(text);
    expect(body.servers[0].signIn.state).toBe('signed-in');
    expect(body.servers[0].quarantined).toEqual([{ name: 'echo', reason: 'changed' }]);
    expect(body.servers[0].diff).toContain('+Changed.');
    const approved = await fetch(`${base}/api/mcp/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'remote' }),
    });
    expect(await approved.json()).toEqual({ server: 'remote', approved: ['echo'] });
  });

  it('refuses an approval from a viewer who is not an operator', async () => {
    const base = await serveFor(alice);
    const body = await (await fetch(`${base}/api/mcp/servers`)).json();
    expect(body.servers[0].signIn.state).toBe('none');
    expect(body.servers[0].diff).toBeUndefined();
    const refused = await fetch(`${base}/api/mcp/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'remote' }),
    });
    expect(refused.status).toBe(403);
  });
});
