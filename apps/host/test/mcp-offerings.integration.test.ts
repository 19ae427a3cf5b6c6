import { PassThrough } from 'node:stream';
import {
  type JSONRPCMessage,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import type { InputCapableCaller } from '../src/server/offering-input.js';
import { OfferingError, type ServerOfferings } from '../src/server/offerings.js';
import { serveStdio } from '../src/server/stdio-server.js';
import { ToolHost } from '../src/server/tool-host.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

// The server serves whatever the deployment offers besides tools through the same handlers in
// both eras. The offerings here are a small stand-in written for this test (the deployment's own
// come from its packages): one prompt, one resource that can change, one template.

const WATCHED = 'test://watched';
const watchers = new Set<(uri: string) => void>();

const offerings: ServerOfferings = {
  listPrompts: async () => [
    { name: 'greet', description: 'Greets someone.', arguments: [{ name: 'who', required: true }] },
  ],
  getPrompt: async (name, args, caller) => {
    if (name === 'ask') {
      // The server hands an offering how to ask the client (see InputCapableCaller).
      const { requestInput } = caller as InputCapableCaller;
      if (!requestInput)
        return { messages: [{ role: 'user', content: { type: 'text', text: 'nobody' } }] };
      const answer = await requestInput({
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Who?',
          requestedSchema: { type: 'object', properties: { who: { type: 'string' } } },
        },
      });
      const who = String((answer.content as { who?: unknown } | undefined)?.who);
      return { messages: [{ role: 'user', content: { type: 'text', text: `Hi ${who}` } }] };
    }
    if (name !== 'greet') throw new OfferingError('not_found', `No prompt named ${name}.`);
    if (!args.who) throw new OfferingError('invalid_params', 'The argument "who" is missing.');
    return { messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${args.who}!` } }] };
  },
  listResources: async () => [{ uri: WATCHED, name: 'watched', mimeType: 'text/plain' }],
  listResourceTemplates: async () => [{ uriTemplate: 'test://items/{id}', name: 'item' }],
  readResource: async (uri) =>
    uri === WATCHED ? [{ uri, mimeType: 'text/plain', text: 'current' }] : undefined,
  complete: async (_ref, argument) => ({
    values: ['alice', 'albert', 'bob'].filter((name) => name.startsWith(argument.value)),
  }),
  subscribe: async (uri, _caller, onUpdated) => {
    if (uri !== WATCHED) throw new OfferingError('not_found', `No resource at ${uri}.`);
    watchers.add(onUpdated);
    return () => watchers.delete(onUpdated);
  },
  onListChanged: () => () => {},
};

let testHost: TestHost;
let host: ToolHost;
let http: HttpServer;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  testHost = await createTestHost();
  host = new ToolHost({ ...testHost.deployment, offerings });
  http = await serveHttp(host, { host: '127.0.0.1', port: 0 });
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

afterAll(async () => {
  await http?.close();
  await testHost?.dispose();
});

async function modern(): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'offerings-modern', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(http.mcpUrl)));
  closers.push(() => client.close());
  return client;
}

async function legacy(): Promise<Client> {
  const client = new Client({ name: 'offerings-legacy', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
  closers.push(() => client.close());
  return client;
}

/** A client transport over a pair of streams: the client's side of an in-process stdio server. */
class StreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();
  constructor(
    private readonly input: PassThrough,
    private readonly output: PassThrough,
  ) {}
  async start(): Promise<void> {
    this.input.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (
        let message = this.#buffer.readMessage();
        message;
        message = this.#buffer.readMessage()
      ) {
        this.onmessage?.(message);
      }
    });
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.output.write(serializeMessage(message));
  }
  async close(): Promise<void> {
    this.output.end();
    this.onclose?.();
  }
}

/** Expects a JSON-RPC -32602 whose message matches `pattern` (both SDKs' errors carry `code`). */
async function refused(pending: Promise<unknown>, pattern: RegExp): Promise<void> {
  await expect(pending).rejects.toMatchObject({
    code: -32602,
    message: expect.stringMatching(pattern),
  });
}

describe('offerings in both eras', () => {
  it.each([
    ['2025-11-25', legacy],
    ['2026-07-28', modern],
  ] as const)(
    'serves prompts, resources, templates and completion to a %s client',
    async (_era, open) => {
      const client = (await open()) as Client;
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['greet']);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello, Ada!' });
      await refused(client.getPrompt({ name: 'nope' }), /No prompt named nope/);
      await refused(client.getPrompt({ name: 'greet', arguments: {} }), /"who" is missing/);
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain(WATCHED);
      expect((await client.readResource({ uri: WATCHED })).contents[0]).toMatchObject({
        text: 'current',
      });
      await refused(
        client.readResource({ uri: 'test://missing' }),
        /Resource test:\/\/missing not found/,
      );
      expect((await client.listResourceTemplates()).resourceTemplates[0]?.uriTemplate).toBe(
        'test://items/{id}',
      );
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'who', value: 'al' },
      });
      expect(completed.completion.values).toEqual(['alice', 'albert']);
    },
  );

  it('lets a prompt ask the client: a request to a 2025-11-25 client, a round trip to a 2026-07-28 one', async () => {
    const old = new Client(
      { name: 'offerings-legacy', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    old.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept',
      content: { who: 'legacy' },
    }));
    await old.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
    closers.push(() => old.close());
    expect((await old.getPrompt({ name: 'ask' })).messages[0]?.content).toEqual({
      type: 'text',
      text: 'Hi legacy',
    });
    const current = new ModernClient(
      { name: 'offerings-modern', version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    current.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { who: 'modern' },
    }));
    await current.connect(new ModernTransport(new URL(http.mcpUrl)));
    closers.push(() => current.close());
    expect((await current.getPrompt({ name: 'ask' })).messages[0]?.content).toEqual({
      type: 'text',
      text: 'Hi modern',
    });
  });

  it('tells a 2025-11-25 subscriber when a resource changes, until it unsubscribes', async () => {
    const client = await legacy();
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
    });
    await expect(client.subscribeResource({ uri: 'test://missing' })).rejects.toThrow(/-32602/);
    await client.subscribeResource({ uri: WATCHED });
    for (const watcher of watchers) watcher(WATCHED);
    await expect.poll(() => updated, { timeout: 10_000 }).toEqual([WATCHED]);
    await client.unsubscribeResource({ uri: WATCHED });
    expect(watchers.size).toBe(0);
  });

  it('tells a 2026-07-28 listen stream when a watched resource changes', async () => {
    const client = await modern();
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
    await expect(client.listen({ resourceSubscriptions: ['test://missing'] })).rejects.toThrow(
      /not found/,
    );
    const subscription = await client.listen({ resourceSubscriptions: [WATCHED] });
    closers.push(() => subscription.close());
    await expect.poll(() => watchers.size, { timeout: 10_000 }).toBe(1);
    for (const watcher of watchers) watcher(WATCHED);
    await expect.poll(() => updated, { timeout: 10_000 }).toEqual([WATCHED]);
    await subscription.close();
    await expect.poll(() => watchers.size, { timeout: 10_000 }).toBe(0);
  });

  it('tells a 2026-07-28 listen stream over stdio when a watched resource changes', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const stdio = await serveStdio(host, { stdin: toServer, stdout: toClient });
    closers.push(() => stdio.close());
    const client = new ModernClient(
      { name: 'offerings-stdio', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamTransport(toClient, toServer));
    closers.push(() => client.close());
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
    await expect(client.listen({ resourceSubscriptions: ['test://missing'] })).rejects.toThrow(
      /not found/,
    );
    expect(watchers.size).toBe(0);
    const subscription = await client.listen({ resourceSubscriptions: [WATCHED] });
    await expect.poll(() => watchers.size, { timeout: 10_000 }).toBe(1);
    for (const watcher of watchers) watcher(WATCHED);
    await expect.poll(() => updated, { timeout: 10_000 }).toEqual([WATCHED]);
    await subscription.close();
    await expect.poll(() => watchers.size, { timeout: 10_000 }).toBe(0);
  });
});
