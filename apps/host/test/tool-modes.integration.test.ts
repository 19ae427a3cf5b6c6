import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeploymentConfig, resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment } from '../src/deployment.js';
import { createMcpServer } from '../src/server/mcp-server.js';
import { ToolHost } from '../src/server/tool-host.js';

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-modes-'));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Serves the embedded default (plus `config`) over an in-memory MCP connection. */
async function serve(config: DeploymentConfig) {
  const resolved = resolveDeploymentConfig(
    { dataDir: join(scratch, 'data'), ...config },
    { cwd: scratch, env: {} },
  );
  const deployment = await composeDeployment(resolved);
  const { server, dispose } = createMcpServer(new ToolHost(deployment));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'modes-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      dispose();
      await deployment.close();
    },
  };
}

/** The size a client receives for `tools/list`, in bytes of JSON. */
async function listSize(client: Client): Promise<{ names: string[]; bytes: number }> {
  const { tools } = await client.listTools();
  return { names: tools.map((tool) => tool.name), bytes: JSON.stringify({ tools }).length };
}

describe('tools.mode', () => {
  it('discover lists only the three meta tools, a small fraction of the full list', async () => {
    const all = await serve({});
    const discover = await serve({ tools: { mode: 'discover' } });
    try {
      const full = await listSize(all.client);
      const meta = await listSize(discover.client);
      expect(meta.names.sort()).toEqual(['tool_call', 'tool_describe', 'tool_search']);
      expect(full.names).not.toContain('tool_call');
      expect(full.names.length).toBeGreaterThan(40);
      expect(meta.bytes).toBeLessThan(full.bytes / 20);
      // Figures quoted in the host README.
      process.stdout.write(
        `tools/list: all ${full.names.length} tools ${full.bytes} B; discover ${meta.bytes} B\n`,
      );
    } finally {
      await all.close();
      await discover.close();
    }
  });

  it('discover still reaches every tool through tool_call, with its own gates', async () => {
    const discover = await serve({ tools: { mode: 'discover' } });
    try {
      const found = await discover.client.callTool({
        name: 'tool_search',
        arguments: { query: 'math expression' },
      });
      expect(JSON.stringify(found.content)).toContain('calculate (utility, LOW)');
      const result = await discover.client.callTool({
        name: 'tool_call',
        arguments: { id: 'calculate', arguments: { expression: '6*7' } },
      });
      expect(result.content).toEqual([{ type: 'text', text: '42' }]);
      const refused = await discover.client.callTool({
        name: 'tool_call',
        arguments: { id: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('PERMISSION_DENIED');
    } finally {
      await discover.close();
    }
  });

  it('include and exclude shape the listed tools', async () => {
    const some = await serve({
      tools: { include: ['category:file', 'calculate'], exclude: ['delete_file'] },
    });
    try {
      const { names } = await listSize(some.client);
      expect(names).toContain('read_file');
      expect(names).toContain('calculate');
      expect(names).not.toContain('delete_file');
      expect(names).not.toContain('web_fetch');
    } finally {
      await some.close();
    }
  });
});
