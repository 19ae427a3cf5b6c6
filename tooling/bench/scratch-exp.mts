import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EnhancedToolExecutor, DefaultToolExecutor, ToolRegistry, ToolTraceRecorder, ToolCircuitBreaker, ToolRateLimiter, RiskAwareToolGate, ToolPermissionManager } from '@toolsys/core-tool-registry';
import { createMcpTools, McpManager, toToolResult } from '@toolsys/mcp-client';
const require = createRequire(import.meta.url);
const entry = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const manager = new McpManager({ servers: [{ name: 'e', transport: 'stdio', command: process.execPath, args: [entry, 'stdio'] }] });
await manager.connect('e');
const registry = new ToolRegistry(); registry.registerAll(createMcpTools({ manager }));
const en = new EnhancedToolExecutor({ registry, gate: new RiskAwareToolGate(new ToolPermissionManager({ policy: { MEDIUM: 'allow' } })), rateLimiter: new ToolRateLimiter(), circuitBreaker: new ToolCircuitBreaker(), traces: new ToolTraceRecorder(), runPolicies: {} });
const v2 = new DefaultToolExecutor({ registry });
const raw = manager.client('e')!.sdkClient!;
const mc = manager.client('e')!;
const args = { server: 'e', tool: 'echo', arguments: { message: 'b' } };
const shared = new AbortController().signal;
const remoteSchema = (await import('@toolsys/core-tool-registry')).ToolSchema.fromRendered(manager.tools('e').find(t => t.name === 'echo')!.inputSchema);
const cases: Record<string, () => Promise<unknown>> = {
  raw: () => raw.callTool({ name: 'echo', arguments: { message: 'b' } }),
  mcpClient: () => mc.callTool('echo', { message: 'b' }),
  prog: () => mc.callTool('echo', { message: 'b' }, { onProgress: () => {} }),
  sigShared: () => mc.callTool('echo', { message: 'b' }, { signal: shared }),
  newCtl: () => { new AbortController(); return mc.callTool('echo', { message: 'b' }); },
  handler: async () => toToolResult(await manager.callTool('e', 'echo', { message: 'b' }), { server: 'e', tool: 'echo' }),
  validate: () => { remoteSchema.parse({ message: 'b' }); registry.get('mcp_call')!.inputSchema.parse(args); return mc.callTool('echo', { message: 'b' }); },
  v2: () => v2.execute('mcp_call', args),
  v3: () => en.execute('mcp_call', args),
};
const names = Object.keys(cases);
const times: Record<string, number[]> = {};
for (let i = 0; i < 3000; i++) {
  const order = [...names].sort(() => Math.random() - 0.5);
  for (const name of order) { const s = performance.now(); await cases[name](); if (i >= 500) (times[name] ??= []).push(performance.now() - s); }
}
const base = times.raw.sort((a, b) => a - b)[times.raw.length >> 1];
for (const name of names) { const t = times[name].sort((a, b) => a - b); const m = t[t.length >> 1]; console.log(name.padEnd(18), m.toFixed(3), (m / base).toFixed(2)); }
await manager.close();
