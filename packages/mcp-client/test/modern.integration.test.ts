import { ToolError } from '@toolsys/core-tool-registry';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpServerConfig } from '../src/index.js';
import { marked } from './marked.js';
import {
  createHarness,
  EVERYTHING,
  type Harness,
  type HttpServerProcess,
  modernStdio,
  startEverythingHttp,
  startModernHttp,
  waitFor,
} from './support.js';

/** Both legs of the 2026-07-28-only fixture server (the official v2 server SDK). */
describe.each([
  { leg: 'stdio', via: 'stdio' },
  { leg: 'Streamable HTTP', via: 'streamable-http' },
])('a 2026-07-28-only server over $leg', ({ via }) => {
  let server: HttpServerProcess | undefined;
  let config: McpServerConfig;
  let harness: Harness;
  beforeAll(async () => {
    if (via === 'stdio') config = modernStdio();
    else {
      server = await startModernHttp();
      config = { name: 'modern', transport: 'http', url: `http://127.0.0.1:${server.port}/mcp` };
    }
    harness = createHarness({ servers: [config] });
  });
  afterAll(async () => {
    await harness?.close();
    await server?.stop();
  });

  it('negotiates 2026-07-28 by itself, lists the tools and calls one', async () => {
    const connected = await harness.executor.execute('mcp_connect', { server: 'modern' });
    expect(connected.ok && connected.content).toMatch(
      new RegExp(
        `^Connected to MCP server "modern" \\(${via}\\)\\. 4 tool\\(s\\): add, count, wait, confirm\\.`,
      ),
    );
    const state = harness.manager.state('modern');
    expect(state.protocol).toEqual({ era: 'modern', version: '2026-07-28' });
    expect(state.serverInfo).toEqual({ name: 'modern-fixture', version: '2.0.0' });
    const called = await harness.executor.execute('mcp_call', {
      server: 'modern',
      tool: 'add',
      arguments: { a: 2, b: 3 },
    });
    expect(called.ok && called.content).toBe(marked('5'));
    expect(called.ok && called.data).toMatchObject({ sum: 5 });
  });

  it('shows the era in mcp_list', async () => {
    const listed = await harness.executor.execute('mcp_list', { server: 'modern' });
    expect(listed.ok && listed.content).toContain(`modern — connected via ${via}, MCP 2026-07-28`);
    expect(listed.ok && listed.data).toMatchObject({
      servers: [{ protocol: { era: 'modern', version: '2026-07-28' } }],
    });
  });

  it('forwards progress and cancels on timeout, in the new era', async () => {
    const client = harness.manager.client('modern') as McpClient;
    const updates: string[] = [];
    const result = await client.callTool(
      'count',
      {},
      { onProgress: (update) => updates.push(`${update.progress}/${update.total}`) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'counted' }]);
    expect(updates).toEqual(['1/3', '2/3', '3/3']);
    const started = performance.now();
    const failure = await client.callTool('wait', {}, { timeoutMs: 300 }).catch((error) => error);
    expect(failure).toBeInstanceOf(ToolError);
    expect((failure as ToolError).code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(5_000);
    if (via === 'stdio') {
      // The server saw the cancellation (its stderr is ours on stdio).
      await waitFor(() => client.stderr.text().includes('cancelled wait'));
    }
  });

  it('a tool that asks the user for input is refused clearly, not hung', async () => {
    const called = await harness.executor.execute('mcp_call', {
      server: 'modern',
      tool: 'confirm',
      arguments: {},
    });
    expect(called.ok).toBe(false);
    expect(!called.ok && called.error.code).toBe('UNSUPPORTED');
    expect(!called.ok && called.error.message).toContain('needs input this client cannot give');
  });
});

describe('the protocolVersion setting', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('pinned to 2026-07-28 reaches a modern server', async () => {
    const client = new McpClient({ ...modernStdio(), protocolVersion: '2026-07-28' });
    try {
      await client.connect({ timeoutMs: 20_000 });
      expect(client.era).toBe('modern');
      expect((await client.listTools()).map((tool) => tool.name)).toContain('add');
    } finally {
      await client.close();
    }
  });

  it('a form the server asks for mid-call is answered by onElicitation and the call completes', async () => {
    const asked: string[] = [];
    const client = new McpClient(modernStdio(), {
      onElicitation: async (request) => {
        asked.push(request.message);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    try {
      await client.connect({ timeoutMs: 20_000 });
      await client.listTools();
      const result = await client.callTool('confirm', {});
      expect(result.content).toEqual([{ type: 'text', text: 'confirm=true note=none' }]);
      expect(asked).toEqual(['Really?']);
    } finally {
      await client.close();
    }
  });

  it('pinned to 2026-07-28 fails clearly against a 2025-only server', async () => {
    const client = new McpClient({
      name: 'old',
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      protocolVersion: '2026-07-28',
    });
    const failure = await client.connect({ timeoutMs: 20_000 }).catch((error) => error);
    expect(failure).toBeInstanceOf(ToolError);
    expect((failure as ToolError).options.details).toMatchObject({
      reason: 'protocol_negotiation',
    });
    expect((failure as ToolError).message).toMatch(
      /^MCP server "old" could not agree on a protocol version: /,
    );
    expect(client.isConnected).toBe(false);
    expect(client.pid).toBeUndefined();
  });

  it('pinned to 2025-11-25 against a modern-only server fails, never hangs', async () => {
    const client = new McpClient({ ...modernStdio(), protocolVersion: '2025-11-25' });
    const started = performance.now();
    const failure = await client.connect({ timeoutMs: 5_000 }).catch((error) => error);
    expect(failure).toBeInstanceOf(ToolError);
    expect(performance.now() - started).toBeLessThan(10_000);
    await client.close();
  });

  it('auto speaks 2025-11-25 to a 2025 server over HTTP, with a session', async () => {
    const server = await startEverythingHttp('streamableHttp');
    const client = new McpClient({
      name: 'old-http',
      transport: 'streamable-http',
      url: `http://127.0.0.1:${server.port}/mcp`,
    });
    try {
      await client.connect({ timeoutMs: 20_000 });
      expect({ era: client.era, version: client.protocolVersion }).toEqual({
        era: 'legacy',
        version: '2025-11-25',
      });
      const result = await client.callTool('echo', { message: 'hi' });
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it('2026-07-28 over the HTTP+SSE transport is refused before anything is contacted', async () => {
    const client = new McpClient({
      name: 'sse',
      transport: 'sse',
      url: 'http://127.0.0.1:9/sse',
      protocolVersion: '2026-07-28',
    });
    const failure = await client.connect({ timeoutMs: 2_000 }).catch((error) => error);
    expect((failure as ToolError).options.details).toMatchObject({
      reason: 'protocol_transport_mismatch',
    });
  });
});
