import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient, type McpStdioServerConfig } from '../src/index.js';

const QUIRKS = fileURLToPath(new URL('./fixtures/legacy-quirks-server.mjs', import.meta.url));

function quirky(quirk: 'exit' | 'silent'): McpStdioServerConfig {
  return {
    name: `legacy-${quirk}`,
    transport: 'stdio',
    command: process.execPath,
    args: [QUIRKS],
    env: { QUIRK: quirk },
  };
}

const clients: McpClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

describe('2025-era stdio servers that mishandle the era probe', () => {
  it('one that exits on server/discover is started again and spoken to in the 2025 era', async () => {
    const client = new McpClient(quirky('exit'));
    clients.push(client);
    await client.connect({ timeoutMs: 10_000 });
    expect(client.era).toBe('legacy');
    expect((await client.callTool('hello', {})).content).toEqual([{ type: 'text', text: 'hi' }]);
    const lines = client.stderr.lines();
    expect(lines.filter((line) => line === 'started')).toHaveLength(2);
    // The second start is sent no probe.
    expect(lines[lines.lastIndexOf('started') + 1]).toBe('recv initialize');
  });

  it('one that never answers server/discover gets initialize after half the time limit', async () => {
    const client = new McpClient(quirky('silent'));
    clients.push(client);
    const started = performance.now();
    await client.connect({ timeoutMs: 2_000 });
    const ms = performance.now() - started;
    expect(client.era).toBe('legacy');
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(2_000);
    await client.callTool('hello', {});
    expect(client.stderr.lines().slice(0, 3)).toEqual([
      'started',
      'recv server/discover',
      'recv initialize',
    ]);
  });

  it('pinned to 2025-11-25, neither is probed at all', async () => {
    for (const quirk of ['exit', 'silent'] as const) {
      const client = new McpClient({ ...quirky(quirk), protocolVersion: '2025-11-25' });
      clients.push(client);
      await client.connect({ timeoutMs: 5_000 });
      await client.callTool('hello', {});
      expect(client.stderr.lines()).not.toContain('recv server/discover');
      expect(client.stderr.lines().slice(0, 2)).toEqual(['started', 'recv initialize']);
    }
  });
});
