import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DefaultToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { createMcpTools, McpManager } from '@toolsys/mcp-client';
const require = createRequire(import.meta.url);
const entry = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const raw = new Client({ name: 'r', version: '1' });
await raw.connect(new StdioClientTransport({ command: process.execPath, args: [entry, 'stdio'], stderr: 'ignore' }));
const raw2 = new Client({ name: 'r', version: '1' });
await raw2.connect(new StdioClientTransport({ command: process.execPath, args: [entry, 'stdio'], stderr: 'pipe' }));
await raw2.listTools();
const manager = new McpManager({ servers: [{ name: 'e', transport: 'stdio', command: process.execPath, args: [entry, 'stdio'] }] });
await manager.connect('e');
const registry = new ToolRegistry(); registry.registerAll(createMcpTools({ manager }));
const ex = new DefaultToolExecutor({ registry });
const cases: Record<string, () => Promise<unknown>> = {
  raw: () => raw.callTool({ name: 'echo', arguments: { message: 'b' } }),
  rawListedPipe: () => raw2.callTool({ name: 'echo', arguments: { message: 'b' } }),
  manager: () => manager.callTool('e', 'echo', { message: 'b' }),
  v2exec: () => ex.execute('mcp_call', { server: 'e', tool: 'echo', arguments: { message: 'b' } }),
};
for (let round = 0; round < 3; round++) for (const [name, fn] of Object.entries(cases)) {
  const times: number[] = [];
  for (let i = 0; i < 300; i++) { const s = performance.now(); await fn(); times.push(performance.now() - s); }
  times.sort((a, b) => a - b);
  console.log(round, name, times[150].toFixed(3), (times.reduce((a, b) => a + b) / times.length).toFixed(3));
}
await raw.close(); await raw2.close(); await manager.close();
