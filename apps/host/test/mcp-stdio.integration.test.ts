import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { contentText, recordProgress } from './support/mcp-client.js';

const CLI = resolve(import.meta.dirname, '../src/cli.ts');
const FIXTURE = resolve(import.meta.dirname, 'fixtures/stdio-test-server.ts');
const NODE_ARGS = ['--conditions=@toolsys/source', '--import', 'tsx'];

/** Each test starts a child process; on a loaded 2-core machine start-up can take a while. */
const SLOW = { timeout: 120_000 };

let scratch: string;
const clients: Client[] = [];

/** Starts a real child process speaking MCP over stdio and connects the SDK client to it. */
async function connect(
  script: string,
  args: string[] = [],
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...NODE_ARGS, script, ...args],
    // tsx is resolved from the host package; the config is looked up in INIT_CWD.
    cwd: resolve(import.meta.dirname, '..'),
    env: {
      ...(process.env as Record<string, string>),
      INIT_CWD: scratch,
      TOOLSYS_DATA_DIR: join(scratch, 'data'),
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'host-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-stdio-'));
});

afterEach(async () => {
  // Closing the client closes the child's stdin and ends the process.
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('toolsys serve --stdio (the real CLI)', SLOW, () => {
  it('lists the tools, runs a call and returns a failed call as an error result', async () => {
    const { client } = await connect(CLI, ['serve', '--stdio']);
    expect(client.getServerVersion()?.name).toBe('toolsys');
    const { tools } = await client.listTools();
    const calculate = tools.find((tool) => tool.name === 'calculate');
    expect(calculate?.annotations?.readOnlyHint).toBe(true);

    const ok = await client.callTool({ name: 'calculate', arguments: { expression: '2+3*4' } });
    expect(ok).toMatchObject({
      content: [{ type: 'text', text: '14' }],
      structuredContent: { expression: '2+3*4', result: '14', value: 14 },
    });

    const failed = await client.callTool({ name: 'calculate', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(contentText(failed)).toMatch(/^Error: \[INVALID_ARGUMENT\] expression: required/);
  });
});

describe('serveStdio with test tools', SLOW, () => {
  it('links artifacts and serves them as resources', async () => {
    const { client } = await connect(FIXTURE);
    const result = await client.callTool({ name: 'test_artifacts', arguments: { name: 'shot' } });
    const content = result.content as Array<{ type: string; uri?: string; data?: string }>;
    expect(content.map((block) => block.uri ?? block.type)).toEqual([
      'text',
      'toolsys://data/artifacts/shot.png',
      'image',
      'toolsys://data/artifacts/shot.log',
    ]);
    const read = await client.readResource({ uri: 'toolsys://data/artifacts/shot.png' });
    expect(read.contents).toEqual([
      { uri: 'toolsys://data/artifacts/shot.png', mimeType: 'image/png', blob: content[2]?.data },
    ]);
    expect((await client.listResources()).resources.map((resource) => resource.name)).toEqual([
      'shot.log',
      'shot.png',
    ]);
  });

  it('sends progress notifications for a call with a progress token', async () => {
    const { client } = await connect(FIXTURE);
    const sent = recordProgress(client);
    const result = await client.callTool(
      { name: 'test_slow', arguments: { steps: 2 } },
      undefined,
      {
        onprogress: () => {},
      },
    );
    expect(contentText(result)).toBe('done 2');
    await expect.poll(() => sent.length).toBe(2);
    expect(sent).toEqual([
      { progress: 1, total: 2, message: 'step 1' },
      { progress: 2, total: 2, message: 'step 2' },
    ]);
  });

  it("aborts the handler's signal when the client cancels", async () => {
    const { client, stderr } = await connect(FIXTURE);
    const controller = new AbortController();
    const call = client.callTool({ name: 'test_slow', arguments: { steps: 10_000 } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(new Error('stop')),
    });
    await expect(call).rejects.toThrow();
    await expect.poll(stderr, { timeout: 20_000 }).toContain('handler aborted');
  });
});
