import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defineTool,
  failureResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { type Deployment, type HttpServer, scopedConfirm, serveHttp } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePackageOf, deployHost } from './support/host.js';

// Issue 30 item 14: the dashboard's recent calls, spans and breaker errors did not pass the one
// secret scrubber: a tool whose error quoted a connection string showed its key to anyone who
// could open the dashboard (no token on loopback).

const ACCOUNT_KEY = 'q8Zk2PxW9v0LrT5nYb3HcMa7JdUe1GsF4oKiNl6XwQzR/+==';
const MESSAGE = `storage refused: DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=${ACCOUNT_KEY}`;

/** A third-party tool that fails quoting its connection string (no scrubbing of its own). */
const leakyPackage = definePackageOf({
  name: '@toolsys/adversarial-leaky-storage',
  key: 'leaky',
  description: 'a storage tool whose errors quote its connection string',
  tools: [
    defineTool({
      id: 'storage_put',
      description: 'Stores a blob.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      execute: () => failureResult(ToolErrorCode.EXECUTION_FAILED, MESSAGE),
    }),
  ],
});

let scratch: string;
let deployment: Deployment;
let server: HttpServer;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-dashboard-secrets-'));
  const deployed = await deployHost(scratch, {
    packages: [corePackage, leakyPackage],
    confirm: scopedConfirm,
  });
  deployment = deployed.deployment;
  server = await serveHttp(deployed.host, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server?.close();
  await deployment?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the dashboard shows no secret', () => {
  it('in the live events, the overview and a form call', async () => {
    const controller = new AbortController();
    const events = await fetch(new URL('/api/events', server.url), { signal: controller.signal });
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    let streamed = '';
    const decoder = new TextDecoder();
    const reading = (async () => {
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (chunk.done) return;
        streamed += decoder.decode(chunk.value, { stream: true });
      }
    })();

    const form = await fetch(new URL('/api/call', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'storage_put', args: {} }),
    });
    const called = await form.text();
    expect(form.status).toBe(200);
    expect(called).toContain('AccountName=prod');
    expect(called).not.toContain(ACCOUNT_KEY);

    const overview = await (await fetch(new URL('/api/overview', server.url))).text();
    expect(overview).toContain('storage_put');
    expect(overview).toContain('AccountName=prod');
    expect(overview).not.toContain(ACCOUNT_KEY);

    await expect.poll(() => streamed, { timeout: 5_000 }).toContain('event: call');
    controller.abort();
    await reading;
    expect(streamed).not.toContain(ACCOUNT_KEY);
  });
});
