import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  defineTool,
  failureResult,
  principalKey,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { modernRequest, pollTask } from '@toolsys/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { contentText } from './support/mcp-client.js';

import { createTestHost, type TestHost } from './support/test-tools.js';

// MCP Tasks against the real HTTP server: the 2025-11-25 methods with the SDK's 2025 client, the
// 2026-07-28 extension as a client sends it on the wire. A job of a few seconds stands in for a
// job of minutes, and a client timeout of a fraction of it for a client's 60 s patience.

const TOKENS = [
  { name: 'alice', token: 'alice-secret-token' },
  { name: 'bob', token: 'bob-secret-token' },
];
const JOB_MS = 2_500;
const SLOW = { timeout: 60_000 };

let testHost: TestHost;
let http: HttpServer;
const closers: Array<() => Promise<unknown>> = [];

const slowJob = defineTool({
  id: 'test_job',
  description: 'Works for `ms` milliseconds with progress, then answers.',
  inputSchema: ToolSchema.object({ ms: z.number().int().min(0).max(60_000) }),
  metadata: {
    category: 'utility',
    risk: 'LOW',
    annotations: ToolHints.readOnly,
    taskSupport: 'optional',
  },
  async execute({ ms }, context) {
    context.emit({ type: 'progress', progress: 0, total: 1, message: 'started' });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(context.signal.reason);
      });
    });
    return `job of ${ms} ms done`;
  },
});

const onlyTask = defineTool({
  id: 'test_task_only',
  description: 'Runs only as a task.',
  inputSchema: ToolSchema.empty(),
  metadata: {
    category: 'utility',
    risk: 'LOW',
    annotations: ToolHints.readOnly,
    taskSupport: 'required',
  },
  execute: () => failureResult('EXECUTION_FAILED', 'a tool error, reported in the result'),
});

const askingJob = defineTool({
  id: 'test_asking_job',
  description: 'Asks for a colour while it runs as a task.',
  inputSchema: ToolSchema.empty(),
  metadata: {
    category: 'utility',
    risk: 'LOW',
    annotations: ToolHints.readOnly,
    taskSupport: 'optional',
  },
  async execute(_args, context) {
    const answer = await context.requestInput?.({
      method: 'elicitation/create',
      params: {
        message: 'Which colour?',
        requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } },
      },
    });
    return `colour: ${String((answer?.content as { colour?: string } | undefined)?.colour)}`;
  },
});

async function legacyClient(
  token: string,
  options: { elicit?: boolean; onStatus?: (status: string) => void } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'tasks-test', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: {} } : {} },
  );
  if (options.elicit) {
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { colour: 'teal' },
    }));
  }
  if (options.onStatus) {
    const report = options.onStatus;
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) =>
      report(notification.params.status),
    );
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  closers.push(() => client.close());
  return client;
}

/** One 2026-07-28 request of `token`'s client to the test server. */
function modern(
  token: string,
  method: string,
  params: Record<string, unknown>,
  options: { tasks?: boolean; name?: string } = {},
) {
  return modernRequest({ url: http.mcpUrl, token, ...options }, method, params);
}

function pollModern(token: string, taskId: string, until: (status: string) => boolean) {
  return pollTask({ url: http.mcpUrl, token }, taskId, until);
}

beforeAll(async () => {
  testHost = await createTestHost();
  for (const tool of [slowJob, onlyTask, askingJob]) {
    testHost.deployment.registry.register(tool, { owner: 'test' });
  }
  http = await serveHttp(testHost.host, { host: '127.0.0.1', port: 0, tokens: TOKENS });
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

afterAll(async () => {
  await http?.close();
  await testHost?.dispose();
});

describe('MCP Tasks, 2025-11-25', () => {
  it('lists task support and refuses the calls the tool does not allow', async () => {
    const client = await legacyClient('alice-secret-token');
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'test_job')?.execution).toEqual({
      taskSupport: 'optional',
    });
    expect(tools.find((tool) => tool.name === 'test_task_only')?.execution).toEqual({
      taskSupport: 'required',
    });
    expect(tools.find((tool) => tool.name === 'calculate')?.execution).toBeUndefined();
    // (The SDK's client refuses this itself; the server must too, for clients that do not.)
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'test_task_only', arguments: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toThrow(/runs only as a task/);
    await expect(
      client.request(
        {
          method: 'tools/call',
          params: { name: 'calculate', arguments: { expression: '1+1' }, task: {} },
        },
        CreateTaskResultSchema,
      ),
    ).rejects.toThrow(/does not run as a task/);
  });

  it(
    'a call longer than the client waits: the plain call times out, the task survives a reconnect and gives its result',
    SLOW,
    async () => {
      const first = await legacyClient('alice-secret-token');
      await expect(
        first.callTool({ name: 'test_job', arguments: { ms: JOB_MS } }, undefined, {
          timeout: 500,
        }),
      ).rejects.toThrow(/timed out/i);
      const { task } = await first.request(
        {
          method: 'tools/call',
          params: { name: 'test_job', arguments: { ms: JOB_MS }, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
        { timeout: 500 },
      );
      expect(task.status).toBe('working');
      expect(task.taskId.length).toBeGreaterThanOrEqual(32);
      // The client goes away in the middle of the job and comes back on a new connection.
      await first.close();
      const second = await legacyClient('alice-secret-token');
      const listed = await second.request(
        { method: 'tasks/list', params: {} },
        ListTasksResultSchema,
      );
      expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
      let status = 'working';
      for (let i = 0; i < 100 && status === 'working'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (
          await second.request(
            { method: 'tasks/get', params: { taskId: task.taskId } },
            GetTaskResultSchema,
            { timeout: 500 },
          )
        ).status;
      }
      expect(status).toBe('completed');
      const result = await second.request(
        { method: 'tasks/result', params: { taskId: task.taskId } },
        CallToolResultSchema,
        { timeout: 500 },
      );
      expect(contentText(result)).toBe(`job of ${JOB_MS} ms done`);
      expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({
        taskId: task.taskId,
      });
    },
  );

  it('tells the connection of its task status changes', SLOW, async () => {
    const statuses: string[] = [];
    const client = await legacyClient('alice-secret-token', {
      onStatus: (status) => statuses.push(status),
    });
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'test_job', arguments: { ms: 200 }, task: {} } },
      CreateTaskResultSchema,
    );
    await client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      CallToolResultSchema,
    );
    await expect.poll(() => statuses.at(-1)).toBe('completed');
  });

  it(
    'passes the question of a running task to the client that waits on its result',
    SLOW,
    async () => {
      const client = await legacyClient('alice-secret-token', { elicit: true });
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'test_asking_job', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const result = await client.request(
        { method: 'tasks/result', params: { taskId: task.taskId } },
        CallToolResultSchema,
      );
      expect(contentText(result)).toBe('colour: teal');
    },
  );

  it('cancels a running task; its result says so; a second cancel is refused', SLOW, async () => {
    const client = await legacyClient('alice-secret-token');
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'test_job', arguments: { ms: 30_000 }, task: {} } },
      CreateTaskResultSchema,
    );
    const cancelled = await client.request(
      { method: 'tasks/cancel', params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
    expect(cancelled.status).toBe('cancelled');
    const result = await client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      CallToolResultSchema,
    );
    expect(result.isError).toBe(true);
    expect(contentText(result)).toMatch(/cancelled while it ran/);
    await expect(
      client.request(
        { method: 'tasks/cancel', params: { taskId: task.taskId } },
        CancelTaskResultSchema,
      ),
    ).rejects.toThrow(/already ended/);
  });
});

describe('MCP Tasks, 2026-07-28 extension', () => {
  it(
    'the server makes a long call a task for a client that declared the extension; any later request reads it',
    SLOW,
    async () => {
      const { result } = await modern('alice-secret-token', 'tools/call', {
        name: 'test_job',
        arguments: { ms: JOB_MS },
      });
      expect(result).toMatchObject({ resultType: 'task', status: 'working' });
      expect(result).not.toHaveProperty('task');
      expect(result).not.toHaveProperty('ttl');
      expect(Number.isInteger(result?.ttlMs)).toBe(true);
      const taskId = String(result?.taskId);
      const done = await pollModern('alice-secret-token', taskId, (s) => s !== 'working');
      expect(done).toMatchObject({ status: 'completed', resultType: 'complete' });
      expect((done.result as { content: Array<{ text: string }> }).content[0]?.text).toBe(
        `job of ${JOB_MS} ms done`,
      );
    },
  );

  it('answers without a task a client that did not declare the extension', async () => {
    const { result } = await modern(
      'alice-secret-token',
      'tools/call',
      { name: 'test_job', arguments: { ms: 10 } },
      { tasks: false },
    );
    expect(result).toMatchObject({ resultType: 'complete' });
    expect(result?.isError).not.toBe(true);
    expect(result).not.toHaveProperty('taskId');
    const required = await modern(
      'alice-secret-token',
      'tools/call',
      { name: 'test_task_only', arguments: {} },
      { tasks: false },
    );
    expect(required.error?.code).toBe(-32021);
    const get = await modern(
      'alice-secret-token',
      'tasks/get',
      { taskId: 'anything' },
      { tasks: false },
    );
    expect(get.error?.code).toBe(-32021);
  });

  it('a tool error completes the task with the error in its result', SLOW, async () => {
    const { result } = await modern('alice-secret-token', 'tools/call', {
      name: 'test_task_only',
      arguments: {},
    });
    const done = await pollModern(
      'alice-secret-token',
      String(result?.taskId),
      (s) => s !== 'working',
    );
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ isError: true });
  });

  it('a question of the running task is answered with tasks/update', SLOW, async () => {
    const { result } = await modern('alice-secret-token', 'tools/call', {
      name: 'test_asking_job',
      arguments: {},
    });
    const taskId = String(result?.taskId);
    const waiting = await pollModern('alice-secret-token', taskId, (s) => s === 'input_required');
    const [key, request] =
      Object.entries(waiting.inputRequests as Record<string, unknown>)[0] ?? [];
    expect(request).toMatchObject({ method: 'elicitation/create' });
    const ack = await modern('alice-secret-token', 'tasks/update', {
      taskId,
      inputResponses: { [String(key)]: { action: 'accept', content: { colour: 'amber' } } },
    });
    expect(ack.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    expect(ack.result).not.toHaveProperty('status');
    const done = await pollModern('alice-secret-token', taskId, (s) => s === 'completed');
    expect((done.result as { content: Array<{ text: string }> }).content[0]?.text).toBe(
      'colour: amber',
    );
  });

  it(
    'cancel is acknowledged, the task says cancelled, and a second cancel is acknowledged too',
    SLOW,
    async () => {
      const { result } = await modern('alice-secret-token', 'tools/call', {
        name: 'test_job',
        arguments: { ms: 30_000 },
      });
      const taskId = String(result?.taskId);
      const started = Date.now();
      const ack = await modern('alice-secret-token', 'tasks/cancel', { taskId });
      expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.anything() });
      const done = await pollModern('alice-secret-token', taskId, (s) => s !== 'working');
      expect(done.status).toBe('cancelled');
      expect(Date.now() - started).toBeLessThan(2_000);
      expect((await modern('alice-secret-token', 'tasks/cancel', { taskId })).result).toMatchObject(
        {
          resultType: 'complete',
        },
      );
      // The 2025-era methods do not exist in this era.
      expect((await modern('alice-secret-token', 'tasks/result', { taskId })).error?.code).toBe(
        -32601,
      );
    },
  );
});

describe('MCP Tasks, adversarial', () => {
  it(
    'another principal cannot see, read, answer or cancel a task: it gets what an unknown id gets',
    SLOW,
    async () => {
      const { result } = await modern('alice-secret-token', 'tools/call', {
        name: 'test_job',
        arguments: { ms: 5_000 },
      });
      const taskId = String(result?.taskId);
      const unknown = await modern('bob-secret-token', 'tasks/get', {
        taskId: `${taskId.slice(0, -2)}xx`,
      });
      for (const [method, params] of [
        ['tasks/get', { taskId }],
        ['tasks/cancel', { taskId }],
        ['tasks/update', { taskId, inputResponses: { x: { action: 'accept' } } }],
      ] as const) {
        const answer = await modern('bob-secret-token', method, params);
        expect(answer.error?.code).toBe(-32602);
        expect(answer.error?.message.replace(taskId, 'ID')).toBe(
          unknown.error?.message.replace(`${taskId.slice(0, -2)}xx`, 'ID'),
        );
      }
      const bob = await legacyClient('bob-secret-token');
      const listed = await bob.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
      expect(listed.tasks.map((task) => task.taskId)).not.toContain(taskId);
      // Still running, untouched by bob.
      expect((await modern('alice-secret-token', 'tasks/get', { taskId })).result?.status).toBe(
        'working',
      );
      await modern('alice-secret-token', 'tasks/cancel', { taskId });
    },
  );

  it(
    'bounds the tasks one principal runs at once, saying what to do, without touching another principal',
    SLOW,
    async () => {
      const started: string[] = [];
      try {
        for (let i = 0; i < 32; i += 1) {
          const { result } = await modern('alice-secret-token', 'tools/call', {
            name: 'test_job',
            arguments: { ms: 30_000 },
          });
          started.push(String(result?.taskId));
        }
        const refused = await modern('alice-secret-token', 'tools/call', {
          name: 'test_job',
          arguments: { ms: 30_000 },
        });
        expect(refused.error?.code).toBe(-32602);
        expect(refused.error?.message).toMatch(/already run 32 tasks.*cancel one/);
        const other = await modern('bob-secret-token', 'tools/call', {
          name: 'test_job',
          arguments: { ms: 10 },
        });
        expect(other.result).toMatchObject({ resultType: 'task' });
      } finally {
        for (const taskId of started)
          await modern('alice-secret-token', 'tasks/cancel', { taskId });
      }
    },
  );

  it('refuses malformed task methods with a clear invalid-params error', async () => {
    const noId = await modern('alice-secret-token', 'tasks/get', {}, { name: '' });
    expect(noId.error?.code).toBe(-32602);
    const long = await modern('alice-secret-token', 'tasks/get', { taskId: 'x'.repeat(5_000) });
    expect(long.error?.code).toBe(-32602);
    const { result } = await modern('alice-secret-token', 'tools/call', {
      name: 'test_asking_job',
      arguments: {},
    });
    const taskId = String(result?.taskId);
    const waiting = await pollModern('alice-secret-token', taskId, (s) => s === 'input_required');
    const key = Object.keys(waiting.inputRequests as Record<string, unknown>)[0] ?? '';
    const wrapped = await modern('alice-secret-token', 'tasks/update', {
      taskId,
      inputResponses: { [key]: { method: 'elicitation/create', result: { action: 'accept' } } },
    });
    expect(wrapped.error?.code).toBe(-32602);
    expect(wrapped.error?.message).toMatch(/bare answer/);
    // Nothing was answered: the task still waits.
    expect((await modern('alice-secret-token', 'tasks/get', { taskId })).result?.status).toBe(
      'input_required',
    );
    await modern('alice-secret-token', 'tasks/cancel', { taskId });
  });
});

describe('listen streams per principal (2026-07-28)', () => {
  /** A listen stream of `token`'s principal; returns how many tool-list changes it heard. */
  async function listenAs(token: string): Promise<() => number> {
    const client = new ModernClient(
      { name: 'listen-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernTransport(new URL(http.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    closers.push(() => client.close());
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes += 1;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    closers.push(() => subscription.close());
    return () => changes;
  }

  it('a run-time tool one principal defines is heard of on its own streams only; a shared tool on all', async () => {
    const alice = await listenAs('alice-secret-token');
    const bob = await listenAs('bob-secret-token');
    const alicesKey = principalKey({ id: 'alice', kind: 'token', scopes: [] });
    const registry = testHost.deployment.registry;
    const own = defineTool({
      id: 'test_alices_own',
      description: 'Defined at run time by alice.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
      execute: () => 'mine',
    });
    registry.register({ ...own, definedBy: alicesKey }, { owner: 'test' });
    try {
      await expect.poll(alice, { timeout: 10_000 }).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(bob()).toBe(0);
      registry.register({ ...own, id: 'test_everyones' }, { owner: 'test' });
      await expect.poll(bob, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      registry.unregister('test_alices_own', alicesKey);
      registry.unregister('test_everyones');
    }
  });
});
