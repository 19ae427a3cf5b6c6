import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { toolPackage as browserPackage } from '@toolsys/app-browser';
import { toolPackage as terminalPackage } from '@toolsys/platform-terminal';
import { freePort, type HaproxyProcess, startHaproxy } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeploymentConfig, resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment, type Deployment } from '../src/deployment.js';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { ToolHost } from '../src/server/tool-host.js';

// Issue 33: two replicas of serve --http, named replica1 and replica2, behind a real HAProxy with
// the shipped deploy/haproxy.cfg. A 2026-07-28 client of the official v2 SDK (era pinned) opens a
// real terminal session (a PTY running bash): its id names the replica, the client mirrors it into
// Mcp-Param-Handle, and every later call with it reaches that replica, while calls without a
// handle are spread over both.

const PINNED = { mode: { pin: '2026-07-28' } } as const;

let scratch: string;
let haproxy: HaproxyProcess;
const deployments: Deployment[] = [];
const servers: HttpServer[] = [];
const clients: ModernClient[] = [];
/** Each request the client sent through HAProxy: its Mcp-Param-Handle header and who answered. */
const exchanges: { handle: string | null; method: string | null; servedBy: string | null }[] = [];

/** Replica n's config: its name from the config file (replica1) or the environment (replica2). */
function replicaConfig(index: number): { config: DeploymentConfig; env: NodeJS.ProcessEnv } {
  const base: DeploymentConfig = {
    workspaceRoot: join(scratch, `r${index}`, 'workspace'),
    dataDir: join(scratch, `r${index}`, 'data'),
    permissions: { MEDIUM: 'allow', HIGH: 'allow' },
    // Listed only (its tools' schemas): no test here opens a page.
    packages: { 'app-browser': { enabled: true } },
  };
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(scratch, `r${index}`) };
  return index === 1
    ? { config: { ...base, server: { replicaName: 'replica1' } }, env }
    : { config: base, env: { ...env, TOOLSYS_REPLICA_NAME: `replica${index}` } };
}

async function modernClient(): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'handle-routing-test', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: PINNED },
  );
  const recording: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const response = await fetch(input, init);
    exchanges.push({
      handle: headers.get('mcp-param-handle'),
      method: headers.get('mcp-method'),
      servedBy: response.headers.get('x-served-by'),
    });
    return response;
  };
  await client.connect(
    new ModernHttpTransport(new URL(`${haproxy.url}/mcp`), { fetch: recording }),
  );
  clients.push(client);
  return client;
}

type CallResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

function dataOf(result: unknown): Record<string, unknown> {
  const call = result as CallResult;
  expect(call.isError ?? false, JSON.stringify(result)).toBe(false);
  return call.structuredContent ?? {};
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-handle-routing-'));
  const port = await freePort();
  for (const index of [1, 2]) {
    const { config, env } = replicaConfig(index);
    mkdirSync(config.workspaceRoot as string, { recursive: true });
    const deployment = await composeDeployment(
      resolveDeploymentConfig(config, { cwd: scratch, env }),
      { packages: [terminalPackage, browserPackage] },
    );
    deployments.push(deployment);
    servers.push(
      await serveHttp(new ToolHost(deployment, { warn: () => {} }), {
        host: '127.0.0.1',
        port: 0,
        allowedHosts: [`127.0.0.1:${port}`],
      }),
    );
  }
  haproxy = await startHaproxy(
    servers.map((server) => new URL(server.url).host),
    { port },
  );
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await haproxy?.stop();
  for (const server of servers) await server.close();
  for (const deployment of deployments) await deployment.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('handles that name their replica, behind HAProxy', { timeout: 120_000 }, () => {
  it('lists the handle arguments with x-mcp-header Handle, and the client keeps every tool', async () => {
    const client = await modernClient();
    const { tools } = await client.listTools();
    // The SDK client drops a tool whose x-mcp-header declaration breaks SEP-2243's rules.
    const registered = deployments[0]?.registry.list() ?? [];
    expect(tools.length).toBe(registered.length);
    const browserTools = tools.filter((tool) => tool.name.startsWith('browser_'));
    expect(browserTools.length).toBeGreaterThan(10);
    for (const tool of tools) {
      const shape = tool.inputSchema as { properties?: Record<string, Record<string, unknown>> };
      for (const name of ['sessionId', 'tab']) {
        const property = shape.properties?.[name];
        if (property !== undefined) expect(property['x-mcp-header'], tool.name).toBe('Handle');
      }
    }
    const snapshot = tools.find((tool) => tool.name === 'terminal_snapshot');
    const run = tools.find((tool) => tool.name === 'terminal_run');
    const properties = (tool: typeof snapshot) =>
      (tool?.inputSchema as { properties?: Record<string, Record<string, unknown>> } | undefined)
        ?.properties ?? {};
    expect(properties(snapshot).sessionId?.['x-mcp-header']).toBe('Handle');
    expect(properties(run).sessionId?.['x-mcp-header']).toBe('Handle');
  });

  it('routes every call with a terminal session id to the replica that holds it', async () => {
    const client = await modernClient();
    await client.listTools();
    const created = dataOf(await client.callTool({ name: 'terminal_create', arguments: {} }));
    const sessionId = String(created.sessionId);
    const owner = /^(replica[12])\.t-[0-9a-f]{32}$/.exec(sessionId)?.[1];
    expect(owner, sessionId).toBeDefined();
    exchanges.length = 0;
    for (let call = 0; call < 16; call += 1) {
      const snapshot = dataOf(
        await client.callTool({ name: 'terminal_snapshot', arguments: { sessionId } }),
      );
      expect(Array.isArray(snapshot.lines)).toBe(true);
    }
    const calls = exchanges.filter((exchange) => exchange.method === 'tools/call');
    expect(calls).toHaveLength(16);
    // The official client mirrored the handle, and HAProxy sent each call to its replica.
    for (const exchange of calls) {
      expect(exchange.handle).toBe(sessionId);
      expect(exchange.servedBy).toBe(owner);
    }
    dataOf(await client.callTool({ name: 'terminal_close', arguments: { sessionId } }));
  });

  it('spreads calls without a handle over both replicas (no stickiness)', async () => {
    const client = await modernClient();
    exchanges.length = 0;
    for (let call = 0; call < 6; call += 1) {
      dataOf(await client.callTool({ name: 'terminal_backends', arguments: {} }));
    }
    const served = exchanges
      .filter((exchange) => exchange.method === 'tools/call')
      .map((exchange) => exchange.servedBy);
    expect(new Set(served)).toEqual(new Set(['replica1', 'replica2']));
  });

  it("answers that a handle's replica is gone once it stopped, from the other replica", async () => {
    const client = await modernClient();
    await client.listTools();
    // A session on replica2 (sessions land round robin: open until one does).
    let sessionId = '';
    for (let tries = 0; tries < 6 && !sessionId.startsWith('replica2.'); tries += 1) {
      sessionId = String(
        dataOf(await client.callTool({ name: 'terminal_create', arguments: {} })).sessionId,
      );
    }
    expect(sessionId).toMatch(/^replica2\./);
    await servers[1]?.close();
    const result = (await client.callTool({
      name: 'terminal_snapshot',
      arguments: { sessionId },
    })) as CallResult & { content: { text: string }[] };
    expect(result.isError).toBe(true);
    const text = result.content.map((block) => block.text).join('\n');
    expect(text).toContain('[NOT_FOUND]');
    expect(text).toContain(
      `belongs to replica "replica2", but this request reached replica "replica1"`,
    );
    expect(text).toContain('Start a new session with terminal.create');
    expect(exchanges.at(-1)?.servedBy).toBe('replica1');
  });
});
