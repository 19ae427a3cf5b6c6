import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PipelineToolExecutor, renderResult } from '@toolsys/core-tool-registry';
import { createNetworkTools, createShellTools } from '@toolsys/core-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedExecutor } from './support/executor.js';

/*
 * Credentials that reach a result under names that say nothing (a config file, a page, a
 * response header): they are recognised by the shape of their value and never shown.
 */

const LEAKS = [
  'redis://:redispass9f2@cache.internal:6379/0',
  'sk_live_51HxAbCdEfGhIjKlMnOp7q',
  'https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnop',
  'https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrSt',
  'Password=dbpass7c1e;',
  'SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLXZhbHVl',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'AKIAIOSFODNN7EXAMPLE',
  'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  'sk-ant-api03-AbCdEfGhIjKlMnOpQrSt-uvwx_yz',
];
const SECRET_PARTS = [
  'redispass9f2',
  'sk_live_51HxAbCdEfGhIjKlMnOp7q',
  'B0001/abcdefghijklmnop',
  'AbCdEfGhIjKlMnOpQrSt',
  'dbpass7c1e',
  'SG.abcdefghijklmnopqrstuv',
  'eyJzdWIiOiJhZG1pbiJ9',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'AKIAIOSFODNN7EXAMPLE',
  'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  'api03-AbCdEfGhIjKlMnOpQrSt',
];
const BODY = `settings\n${LEAKS.map((leak, index) => `value${index} = ${leak}`).join('\n')}\n`;

let workspace: string;
let server: Server;
let origin: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-adv-core-secrets-')));
  await writeFile(join(workspace, 'settings.txt'), BODY);
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'x-debug-token': LEAKS[1] as string });
    response.end(BODY);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(workspace, { recursive: true, force: true });
});

function executor(): PipelineToolExecutor {
  const tools = [
    ...createShellTools({ workspaceRoot: workspace }),
    ...createNetworkTools({ workspaceRoot: workspace, allowPrivateNetwork: true }),
  ];
  return gatedExecutor({ tools, answer: 'allow_once' }).executor;
}

function expectNoSecret(text: string, label: string, shown = true): void {
  for (const part of SECRET_PARTS) expect(text, `${label}: ${part}`).not.toContain(part);
  if (!shown) return;
  expect(text, label).toContain('settings');
  expect(text).toContain('[redacted]');
}

describe('secrets recognised by the shape of their value', () => {
  it('shell_execute output', async () => {
    const result = await executor().execute('shell_execute', { command: 'cat settings.txt' });
    expectNoSecret(renderResult(result), 'content');
    expectNoSecret(JSON.stringify(result.ok ? result.data : result.error), 'data');
  });

  it.each(['web_fetch', 'http_request'])('%s body and headers', async (tool) => {
    const result = await executor().execute(tool, { url: `${origin}/` });
    expectNoSecret(renderResult(result), 'content');
    expectNoSecret(JSON.stringify(result.ok ? result.data : result.error), 'data', false);
  });
});
