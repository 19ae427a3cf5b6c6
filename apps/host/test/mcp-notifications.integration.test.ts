import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDeploymentConfig } from '../src/config.js';
import { composeDeployment } from '../src/deployment.js';
import { createMcpServer } from '../src/server/mcp-server.js';
import { ToolHost } from '../src/server/tool-host.js';

let scratch: string;
let client: Client;
let close: () => Promise<void>;
const messages: LoggingMessageNotification['params'][] = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-notifications-'));
  const resolved = resolveDeploymentConfig(
    { dataDir: join(scratch, 'data') },
    { cwd: scratch, env: {} },
  );
  const deployment = await composeDeployment(resolved);
  const { server, dispose } = createMcpServer(new ToolHost(deployment));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'notifications-test', version: '1.0.0' });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    messages.push(notification.params);
  });
  await client.connect(clientSide);
  close = async () => {
    await client.close();
    dispose();
    await deployment.close();
  };
});

afterAll(async () => {
  await close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('notifications of a tool call', () => {
  it('sends progress as the tool reports it, starting where the tool starts', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'wait', arguments: { seconds: 0.2 } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    });
    expect(result.isError).toBeFalsy();
    expect(progress).toEqual([0, 0.2]);
  });

  it('sends output as logging messages at the levels the client set with logging/setLevel', async () => {
    const call = () =>
      client.callTool({
        name: 'shell_execute',
        arguments: { command: 'echo streamed-out; echo streamed-err >&2' },
      });
    messages.length = 0;
    await client.setLoggingLevel('error');
    expect((await call()).isError).toBeFalsy();
    expect(messages).toEqual([]);

    await client.setLoggingLevel('warning');
    await call();
    expect(messages.map((message) => message.level)).toEqual(['warning']);
    expect(String(messages[0]?.data)).toContain('streamed-err');

    messages.length = 0;
    await client.setLoggingLevel('debug');
    await call();
    expect(messages.map((message) => message.level).sort()).toEqual(['info', 'warning']);
  });
});
