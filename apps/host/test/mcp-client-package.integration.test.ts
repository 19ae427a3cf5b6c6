import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type ConfirmationRequest,
  createToolExecutor,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { toolPackage as mcpClientPackage } from '@toolsys/mcp-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDeploymentConfig } from '../src/config.js';
import { composeDeployment, type Deployment } from '../src/deployment.js';

const EVERYTHING = resolve(
  import.meta.dirname,
  '../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
/** A hand-written MCP server of the mcp-client tests; its tool `request-id` answers the request id. */
const SCRIPTED = resolve(
  import.meta.dirname,
  '../../../packages/mcp-client/test/fixtures/scripted-server.mjs',
);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the mcp-client package in a deployment', () => {
  let scratch: string;
  let deployment: Deployment | undefined;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'host-mcp-client-'));
  });
  afterEach(async () => {
    await deployment?.close();
    deployment = undefined;
    rmSync(scratch, { recursive: true, force: true });
  });

  const env = () => ({ INIT_CWD: scratch, TOOLSYS_DATA_DIR: join(scratch, 'data') });

  it('the default deployment includes mcp_connect, mcp_list and mcp_call exactly once', async () => {
    deployment = await composeDeployment(loadDeploymentConfig({ env: env() }));
    const mcp = deployment.registry.list().filter((tool) => tool.owner === '@toolsys/mcp-client');
    expect(mcp.map((tool) => tool.id)).toEqual(['mcp_call', 'mcp_connect', 'mcp_list']);
    expect(deployment.statuses.get('mcp-client')).toMatchObject({ enabled: true, tools: 3 });
  });

  it('connects a server imported from a Claude Desktop config and stops it on close', async () => {
    writeFileSync(
      join(scratch, 'claude_desktop_config.json'),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
      }),
    );
    writeFileSync(
      join(scratch, 'toolsys.config.json'),
      JSON.stringify({
        permissions: { MEDIUM: 'allow' },
        packages: {
          'mcp-client': { importConfig: 'claude_desktop_config.json', registerRemoteTools: true },
        },
      }),
    );
    deployment = await composeDeployment(loadDeploymentConfig({ env: env() }));
    expect(deployment.statuses.get('mcp-client')?.reason).toContain('1 server(s) configured');
    // An imported server starts only once the user approves it.
    const refused = await deployment.executor.execute('mcp_call', {
      server: 'everything',
      tool: 'echo',
      arguments: { message: 'unapproved' },
    });
    expect(refused.ok === false && refused.error.code).toBe('PERMISSION_DENIED');
    const result = await deployment.executor.execute(
      'mcp_call',
      { server: 'everything', tool: 'echo', arguments: { message: 'through the host' } },
      { confirm: async () => 'allow_session' },
    );
    expect(result.ok && result.content).toContain(
      '<untrusted-mcp-server-content>\nEcho: through the host\n</untrusted-mcp-server-content>',
    );
    expect(deployment.registry.has('mcp__everything__echo')).toBe(true);
    const listed = await deployment.executor.execute('mcp_list', {});
    expect(listed.ok && listed.data).toMatchObject({
      servers: [{ name: 'everything', status: 'connected' }],
    });
    const children = await childPids();
    expect(children.length).toBeGreaterThan(0);
    await deployment.close();
    deployment = undefined;
    for (const child of children) expect(isAlive(child)).toBe(false);
  });

  it('sends tools/call directly by default, and through the SDK with directToolCalls: false', async () => {
    const requestId = async (directToolCalls?: boolean) => {
      writeFileSync(
        join(scratch, 'toolsys.config.json'),
        JSON.stringify({
          permissions: { MEDIUM: 'allow' },
          packages: {
            'mcp-client': {
              servers: { scripted: { command: process.execPath, args: [SCRIPTED] } },
              ...(directToolCalls === undefined ? {} : { directToolCalls }),
            },
          },
        }),
      );
      const composed = await composeDeployment(loadDeploymentConfig({ env: env() }));
      try {
        const result = await composed.executor.execute('mcp_call', {
          server: 'scripted',
          tool: 'request-id',
        });
        return result.ok ? result.content : result.error.message;
      } finally {
        await composed.close();
      }
    };
    // Direct calls carry string ids of their own; the SDK numbers its requests.
    expect(await requestId()).toMatch(/\ntoolsys-\d+\n/);
    expect(await requestId(false)).toMatch(/\n\d+\n/);
  });

  it('asks before running a remote tool that declares no risk and no hints, even trusted', async () => {
    writeFileSync(
      join(scratch, 'toolsys.config.json'),
      JSON.stringify({
        packages: {
          'mcp-client': {
            servers: { scripted: { command: process.execPath, args: [SCRIPTED] } },
            trusted: ['scripted'],
            registerRemoteTools: true,
          },
        },
      }),
    );
    const asked: ConfirmationRequest[] = [];
    deployment = await composeDeployment(loadDeploymentConfig({ env: env() }), {
      confirm: async (request) => {
        asked.push(request);
        return request.toolId === 'mcp_connect' ? 'allow_once' : 'deny';
      },
    });
    const connected = await deployment.executor.execute('mcp_connect', { server: 'scripted' });
    expect(connected.ok ? undefined : connected.error).toBeUndefined();
    expect(deployment.registry.get('mcp__scripted__echo')?.metadata).toMatchObject({
      risk: 'MEDIUM',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    });
    asked.length = 0;
    const refused = await deployment.executor.execute('mcp__scripted__echo', { text: 'not sent' });
    expect(asked).toMatchObject([{ toolId: 'mcp__scripted__echo', risk: 'MEDIUM' }]);
    expect(refused.ok === false && refused.error.code).toBe('PERMISSION_DENIED');
  });

  it('reports a bad inline entry by name and field and keeps the good ones', async () => {
    writeFileSync(
      join(scratch, 'toolsys.config.json'),
      JSON.stringify({
        packages: {
          'mcp-client': {
            servers: { good: { command: 'node' }, broken: { args: ['x'] } },
          },
        },
      }),
    );
    deployment = await composeDeployment(loadDeploymentConfig({ env: env() }));
    expect(deployment.statuses.get('mcp-client')?.reason).toBe(
      'pure Node, always available; 1 server(s) configured; packages.mcp-client.servers: mcpServers.broken: needs "command" (a local server) or "url" (a remote server)',
    );
  });

  it('in gate mode builds the three tools without reading files or starting anything', async () => {
    const registry = new ToolRegistry();
    const contribution = await mcpClientPackage.create({
      config: { importConfig: 'does-not-exist.json' },
      workspaceRoot: scratch,
      dataDir: join(scratch, 'data'),
      configDir: scratch,
      env: {},
      registry,
      executor: createToolExecutor({ registry }),
      mode: 'gate',
    });
    expect(contribution.tools.map((tool) => tool.id)).toEqual([
      'mcp_connect',
      'mcp_list',
      'mcp_call',
    ]);
    expect(await childPids()).toEqual([]);
    await contribution.dispose?.();
  });
});

/** Child processes of this test process (Linux /proc). */
async function childPids(): Promise<number[]> {
  const { readFileSync, readdirSync } = await import('node:fs');
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
