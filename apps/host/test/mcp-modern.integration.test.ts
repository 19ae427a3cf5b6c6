import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, successResult, ToolHints, ToolSchema } from '@toolsys/core-tool-registry';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { contentText } from './support/mcp-client.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

// A 2026-07-28 client of the official v2 SDK, era pinned, and a 2025-11-25 client, on the same
// endpoints: HTTP /mcp and stdio.

const CLI = resolve(import.meta.dirname, '../src/cli.ts');
const NODE_ARGS = ['--conditions=@toolsys/source', '--import', 'tsx'];
const SLOW = { timeout: 120_000 };
const MODERN = { mode: { pin: '2026-07-28' } } as const;

let testHost: TestHost;
let http: HttpServer;
let scratch: string;
const closers: Array<() => Promise<unknown>> = [];

async function modernClient(
  transport: Transport,
  options: {
    elicit?: (message: string) => {
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, string>;
    };
  } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'modern-test', version: '1.0.0' },
    {
      capabilities: options.elicit ? { elicitation: { form: {} } } : {},
      versionNegotiation: MODERN,
    },
  );
  const { elicit } = options;
  if (elicit) {
    client.setRequestHandler('elicitation/create', (request) =>
      elicit((request.params as { message: string }).message),
    );
  }
  await client.connect(transport);
  closers.push(() => client.close());
  return client;
}

/** How often `test_ask` started: a 2026-07-28 call runs again with each new answer. */
let askRuns = 0;

/** Asks the client two questions through `context.requestInput`, then answers with both. */
const askTool = defineTool({
  id: 'test_ask',
  description: 'Asks the user for a colour and a size.',
  inputSchema: ToolSchema.empty(),
  metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
  async execute(_args, context) {
    askRuns += 1;
    if (!context.requestInput) return successResult('cannot ask');
    const ask = async (field: string) => {
      const answer = await context.requestInput?.({
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: `Which ${field}?`,
          requestedSchema: {
            type: 'object',
            properties: { [field]: { type: 'string' } },
            required: [field],
          },
        },
      });
      return String((answer?.content as Record<string, unknown> | undefined)?.[field]);
    };
    const color = await ask('color');
    const size = await ask('size');
    return successResult(`${color}/${size}`);
  },
});

/** The client's answers to `test_ask`, by the question's field. */
const ANSWERS: Record<string, string> = { color: 'blue', size: 'large' };

function answerAsk(message: string) {
  const field = /Which (\w+)\?/.exec(message)?.[1] ?? '';
  return { action: 'accept' as const, content: { [field]: ANSWERS[field] ?? '' } };
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-modern-'));
  testHost = await createTestHost();
  testHost.deployment.registry.register(askTool, { owner: 'test' });
  http = await serveHttp(testHost.host, { host: '127.0.0.1', port: 0 });
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

afterAll(async () => {
  await http?.close();
  await testHost?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

describe('MCP 2026-07-28 over HTTP', () => {
  it('lists the tools in a stable order and calls calculate, without a session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(http.mcpUrl));
    const client = await modernClient(transport);
    expect(client.getNegotiatedProtocolVersion?.() ?? '2026-07-28').toBe('2026-07-28');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('calculate');
    expect(names).toEqual([...names].sort());
    const result = await client.callTool({ name: 'calculate', arguments: { expression: '2+3*4' } });
    expect(contentText(result)).toBe('14');
    expect(transport.sessionId).toBeUndefined();
    expect(http.sessionCount).toBe(0);
  });

  it('answers server/discover and marks tools/list cacheable', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const post = (method: string, params: Record<string, unknown> = {}) =>
      fetch(http.mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: { ...params, _meta: envelope },
        }),
      });
    const discover = (await (await post('server/discover')).json()) as {
      result: { supportedVersions: string[]; capabilities: Record<string, unknown> };
    };
    expect(discover.result.supportedVersions).toContain('2026-07-28');
    expect(discover.result.capabilities.tools).toBeDefined();
    const listed = (await (await post('tools/list')).json()) as {
      result: { ttlMs: number; cacheScope: string };
    };
    expect(listed.result.ttlMs).toBe(60_000);
    expect(listed.result.cacheScope).toBe('private');
  });

  it('confirms a guarded call as an input_required round trip', async () => {
    const asked: string[] = [];
    const client = await modernClient(new StreamableHTTPClientTransport(new URL(http.mcpUrl)), {
      elicit: (message) => {
        asked.push(message);
        return { action: 'accept', content: { decision: 'allow_once' } };
      },
    });
    const result = await client.callTool({ name: 'test_guarded', arguments: { note: 'ok' } });
    expect(contentText(result)).toBe('guarded ran ok');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('test_guarded (MEDIUM risk) wants to run:');
  });

  it('refuses a guarded call the user declines, and one a client cannot ask about', async () => {
    const declining = await modernClient(new StreamableHTTPClientTransport(new URL(http.mcpUrl)), {
      elicit: () => ({ action: 'decline' }),
    });
    const declined = await declining.callTool({ name: 'test_guarded', arguments: {} });
    expect(contentText(declined)).toContain(
      'Error: [PERMISSION_DENIED] The user denied test_guarded.',
    );
    const mute = await modernClient(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
    const refused = await mute.callTool({ name: 'test_guarded', arguments: {} });
    expect(contentText(refused)).toContain('cannot ask the user');
  });

  it("answers a tool's input requests in rounds, running it again with each answer", async () => {
    const client = await modernClient(new StreamableHTTPClientTransport(new URL(http.mcpUrl)), {
      elicit: answerAsk,
    });
    askRuns = 0;
    const result = await client.callTool({ name: 'test_ask', arguments: {} });
    expect(contentText(result)).toBe('blue/large');
    expect(askRuns).toBe(3);
  });

  it('refuses an input request the client did not declare with -32021', async () => {
    const client = await modernClient(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
    await expect(client.callTool({ name: 'test_ask', arguments: {} })).rejects.toThrow(
      /32021|capabilit/i,
    );
  });

  it('sends a 2025-11-25 client the input requests as elicitations, running the tool once', async () => {
    const client = new LegacyClient(
      { name: 'legacy-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => answerAsk(request.params.message));
    await client.connect(new LegacyHttpTransport(new URL(http.mcpUrl)));
    closers.push(() => client.close());
    askRuns = 0;
    const result = await client.callTool({ name: 'test_ask', arguments: {} });
    expect(contentText(result)).toBe('blue/large');
    expect(askRuns).toBe(1);
  });

  it('tells a subscriptions/listen stream when the tool list changes', async () => {
    const client = await modernClient(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes += 1;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    closers.push(() => subscription.close());
    expect(subscription.honoredFilter.toolsListChanged).toBe(true);
    testHost.deployment.registry.register(
      defineTool({
        id: 'test_listed_later',
        description: 'Added while a client listens.',
        inputSchema: ToolSchema.empty(),
        metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
        execute: () => successResult('late'),
      }),
      { owner: 'test' },
    );
    await expect.poll(() => changes, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it('serves a 2025-11-25 client on the same endpoint, with a session', async () => {
    const client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
    const transport = new LegacyHttpTransport(new URL(http.mcpUrl));
    await client.connect(transport);
    closers.push(() => client.close());
    expect(transport.sessionId).toBeDefined();
    const result = await client.callTool({ name: 'calculate', arguments: { expression: '6*7' } });
    expect(contentText(result)).toBe('42');
  });
});

describe('MCP 2026-07-28 over stdio', () => {
  it(
    'lists the default deployment tools and calls calculate with a pinned client',
    SLOW,
    async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [...NODE_ARGS, CLI, 'serve', '--stdio'],
        cwd: resolve(import.meta.dirname, '..'),
        env: {
          ...(process.env as Record<string, string>),
          INIT_CWD: scratch,
          TOOLSYS_DATA_DIR: join(scratch, 'data'),
        },
        stderr: 'pipe',
      });
      const client = await modernClient(transport);
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toContain('calculate');
      expect(names).toEqual([...names].sort());
      const result = await client.callTool({
        name: 'calculate',
        arguments: { expression: '10/4' },
      });
      expect(contentText(result)).toBe('2.5');
    },
  );
});
