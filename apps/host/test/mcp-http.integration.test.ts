import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { defineTool, successResult, ToolHints, ToolSchema } from '@toolsys/core-tool-registry';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp, UnsafeBindError } from '../src/server/http-server.js';
import { TOOLSYS_ERROR_META_KEY } from '../src/server/mcp-tool-mapping.js';
import { contentText, recordProgress } from './support/mcp-client.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

let testHost: TestHost;
let http: HttpServer;
const clients: Client[] = [];

async function connect(
  options: { elicit?: boolean; headers?: Record<string, string>; server?: HttpServer } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'host-test', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  const transport = new StreamableHTTPClientTransport(new URL((options.server ?? http).mcpUrl), {
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  testHost = await createTestHost();
  http = await serveHttp(testHost.host, { host: '127.0.0.1', port: 0 });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

afterAll(async () => {
  await http?.close();
  await testHost?.dispose();
});

describe('toolsys serve --http', () => {
  it('tells the packages when a client ends its session, with the id its tools saw', async () => {
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId as string;
    expect(
      contentText(await client.callTool({ name: 'calculate', arguments: { expression: '1+1' } })),
    ).toBe('2');
    await transport.terminateSession();
    await expect
      .poll(() => testHost.probe.endedSessions, { timeout: 10_000 })
      .toContain(`mcp-${sessionId}`);
  });

  it('lists every tool with its title, input schema and annotations as hints', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const discovery = ['tool_search', 'tool_describe', 'tool_call'];
    expect(tools.map((tool) => tool.name)).toEqual(
      testHost.deployment.registry.ids().filter((id) => !discovery.includes(id)),
    );
    const calculate = tools.find((tool) => tool.name === 'calculate');
    expect(calculate?.inputSchema).toMatchObject({
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
    });
    // Only the hints that differ from what MCP assumes of an absent one.
    expect(calculate?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(calculate?.title).toBe('Calculate');
    // Output schemas go only to a client that asks for the full catalog (see catalog-budget).
    const structured = tools.find((tool) => tool.name === 'test_structured');
    expect(structured?.outputSchema).toBeUndefined();
  });

  it('returns the rendered text and structured content of a successful call', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'test_structured', arguments: { name: 'Ada' } });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
      structuredContent: { greeting: 'Hello, Ada!', length: 3 },
    });
    expect(result.isError).toBeUndefined();
  });

  it('returns a failed call as an error result the model can read', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'calculate', arguments: { expression: 5 } });
    expect(result.isError).toBe(true);
    expect(contentText(result)).toMatch(/^Error: \[INVALID_ARGUMENT\] expression: /);
    expect(contentText(result)).toContain('Next: Fix the arguments and retry.');
    expect(result._meta?.[TOOLSYS_ERROR_META_KEY]).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'expression',
      retryable: false,
    });
  });

  it('names close tools for an unknown tool', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'calculat', arguments: {} });
    expect(result.isError).toBe(true);
    expect(contentText(result)).toContain(
      'Error: [NOT_FOUND] Unknown tool "calculat". Did you mean: calculate',
    );
  });

  it('sends progress notifications and streamed output while the tool runs', async () => {
    const client = await connect();
    const logged: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push(String(notification.params.data));
    });
    const progress = recordProgress(client);
    const result = await client.callTool(
      { name: 'test_slow', arguments: { steps: 3 } },
      undefined,
      { onprogress: () => {} },
    );
    expect(contentText(result)).toBe('done 3');
    await expect.poll(() => progress.length).toBe(3);
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
    await expect.poll(() => logged.length).toBe(3);
    expect(logged).toEqual(['line 1\n', 'line 2\n', 'line 3\n']);
  });

  it("aborts the handler's signal when the client cancels the call", async () => {
    const client = await connect();
    const controller = new AbortController();
    const call = client.callTool({ name: 'test_slow', arguments: { steps: 10_000 } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(new Error('user pressed stop')),
    });
    await expect(call).rejects.toThrow();
    await expect(testHost.probe.aborted).resolves.toBeTypeOf('string');
  });

  it('refuses a call needing confirmation cleanly when the client cannot elicit', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'test_guarded', arguments: { note: 'x' } });
    expect(result.isError).toBe(true);
    expect(contentText(result)).toBe(
      [
        "Error: [PERMISSION_DENIED] test_guarded needs the user's confirmation, but this MCP client cannot ask the user (it does not support elicitation).",
        'Next: Do not retry; use a lower-risk tool, or ask the user to allow test_guarded in toolsys.config.json (permissions.alwaysAllow) or to use a client that supports elicitation.',
      ].join('\n'),
    );
    // Nobody was asked, so the next call is refused for the same reason, not as "already denied".
    const again = await client.callTool({ name: 'test_guarded', arguments: {} });
    expect(contentText(again)).toContain('cannot ask the user');
  });

  it('asks the user through elicitation and runs the call when allowed', async () => {
    const client = await connect({ elicit: true });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'allow_once' } };
    });
    const result = await client.callTool({ name: 'test_guarded', arguments: { note: 'ok' } });
    expect(contentText(result)).toBe('guarded ran ok');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('test_guarded (MEDIUM risk) wants to run:');
  });

  it('refuses the call when the user declines the elicitation', async () => {
    const client = await connect({ elicit: true });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
    const result = await client.callTool({ name: 'test_guarded', arguments: {} });
    expect(result.isError).toBe(true);
    expect(contentText(result)).toContain(
      'Error: [PERMISSION_DENIED] The user denied test_guarded.',
    );
  });

  it('sends tools/list_changed when a tool is registered at run time', async () => {
    const client = await connect();
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    const late = defineTool({
      id: 'test_added_later',
      description: 'Added after start.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      execute: () => successResult('late'),
    });
    // The client opens its notification stream in the background after connecting; changes made
    // before it is open reach no one, so register again until one is announced.
    for (let attempt = 0; attempt < 100 && changes === 0; attempt += 1) {
      testHost.deployment.registry.register(late, { owner: 'test' });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(changes).toBeGreaterThan(0);
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name === 'test_added_later')).toBe(true);
    testHost.deployment.registry.unregister('test_added_later');
  });

  it('refuses a request from a foreign Origin', async () => {
    const response = await fetch(http.mcpUrl, {
      method: 'POST',
      headers: {
        origin: 'http://evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: 'Origin "http://evil.example" is not allowed.',
    });
  });

  it('refuses a request whose Host header is not the server (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const url = new URL(http.url);
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/api/overview',
          headers: { host: 'rebound.example:80' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(status).toBe(403);
  });
});

describe('bearer token', () => {
  it('refuses to bind anything but loopback without a token', async () => {
    await expect(serveHttp(testHost.host, { host: '0.0.0.0', port: 0 })).rejects.toThrow(
      UnsafeBindError,
    );
  });

  it('requires the token when one is set', async () => {
    const guarded = await serveHttp(testHost.host, { host: '127.0.0.1', port: 0, token: 's3cret' });
    try {
      const refused = await fetch(`${guarded.url}/api/overview`);
      expect(refused.status).toBe(401);
      const client = await connect({
        server: guarded,
        headers: { authorization: 'Bearer s3cret' },
      });
      const result = await client.callTool({ name: 'calculate', arguments: { expression: '6*7' } });
      expect(contentText(result)).toBe('42');
    } finally {
      for (const client of clients.splice(0)) await client.close().catch(() => {});
      await guarded.close();
    }
  });
});
