import { mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, serveHttp } from '../src/server/http-server.js';
import { createTestHost, type TestHost } from './support/test-tools.js';

let testHost: TestHost;
let http: HttpServer;
let dataDir: string;
const warnings: string[] = [];
const clients: Client[] = [];

async function connect(): Promise<Client> {
  const client = new Client({ name: 'host-artifacts-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)));
  clients.push(client);
  return client;
}

async function callArtifacts(
  client: Client,
  args: Record<string, unknown>,
): Promise<CallToolResult['content']> {
  const result = (await client.callTool({
    name: 'test_artifacts',
    arguments: args,
  })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return result.content;
}

beforeAll(async () => {
  testHost = await createTestHost({}, { warn: (message) => warnings.push(message) });
  dataDir = testHost.deployment.config.dataDir;
  http = await serveHttp(testHost.host, { host: '127.0.0.1', port: 0 });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  warnings.splice(0);
});

afterAll(async () => {
  await http?.close();
  await testHost?.dispose();
});

describe('artifacts over MCP', () => {
  it('declares the resources capability', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.resources).toEqual({
      subscribe: true,
      listChanged: true,
    });
  });

  it('follows the text with a resource link per artifact and an inline block for a small image', async () => {
    const client = await connect();
    const content = await callArtifacts(client, { name: 'small' });
    const png = readFileSync(join(dataDir, 'artifacts/small.png'));
    expect(content).toEqual([
      { type: 'text', text: 'wrote small' },
      {
        type: 'resource_link',
        uri: 'toolsys://data/artifacts/small.png',
        name: 'small.png',
        mimeType: 'image/png',
        description: 'a test image',
        size: png.length,
      },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
      {
        type: 'resource_link',
        uri: 'toolsys://data/artifacts/small.log',
        name: 'small.log',
        mimeType: 'text/plain',
        size: Buffer.byteLength('log of small\nsecond line ✓\n'),
      },
    ]);
  });

  it('sends an artifact the tool marks inline as an embedded resource after its link', async () => {
    const client = await connect();
    const content = await callArtifacts(client, { name: 'inline', inline: true });
    expect(content.map((block) => block.type)).toEqual([
      'text',
      'resource_link',
      'image',
      'resource_link',
      'resource',
    ]);
    expect(content[4]).toEqual({
      type: 'resource',
      resource: {
        uri: 'toolsys://data/artifacts/inline.log',
        mimeType: 'text/plain',
        text: 'log of inline\nsecond line ✓\n',
      },
    });
  });

  it('reads a linked image as a base64 blob and a text file as text, byte for byte', async () => {
    const client = await connect();
    await callArtifacts(client, { name: 'read me' });
    const image = await client.readResource({ uri: 'toolsys://data/artifacts/read%20me.png' });
    const png = readFileSync(join(dataDir, 'artifacts/read me.png'));
    expect(image.contents).toEqual([
      {
        uri: 'toolsys://data/artifacts/read%20me.png',
        mimeType: 'image/png',
        blob: png.toString('base64'),
      },
    ]);
    const log = await client.readResource({ uri: 'toolsys://data/artifacts/read%20me.log' });
    expect(log.contents).toEqual([
      {
        uri: 'toolsys://data/artifacts/read%20me.log',
        mimeType: 'text/plain',
        text: 'log of read me\nsecond line ✓\n',
      },
    ]);
  });

  it('links an image over 1 MiB without sending it inline', async () => {
    const client = await connect();
    const content = await callArtifacts(client, { name: 'large', large: true });
    const size = readFileSync(join(dataDir, 'artifacts/large.png')).length;
    expect(size).toBeGreaterThan(1024 * 1024);
    expect(content.map((block) => block.type)).toEqual(['text', 'resource_link', 'resource_link']);
    expect(content[1]).toMatchObject({ uri: 'toolsys://data/artifacts/large.png', size });
    const read = await client.readResource({ uri: 'toolsys://data/artifacts/large.png' });
    const [blob] = read.contents as Array<{ blob: string }>;
    expect(Buffer.from(blob?.blob ?? '', 'base64').length).toBe(size);
  });

  it('gives an artifact outside the data directory no link, and logs it', async () => {
    const client = await connect();
    const outside = join(testHost.scratch, 'workspace', 'secret.txt');
    writeFileSync(outside, 'secret');
    const content = await callArtifacts(client, { name: 'mixed', extra: outside });
    expect(
      content.map((block) => (block.type === 'resource_link' ? block.uri : block.type)),
    ).toEqual([
      'text',
      'toolsys://data/artifacts/mixed.png',
      'image',
      'toolsys://data/artifacts/mixed.log',
    ]);
    expect(warnings).toEqual([
      `test_artifacts returned the artifact ${outside}, not linked: it is not inside the data directory`,
    ]);
  });

  it('gives a folder or a link inside the data directory no link, and logs it', async () => {
    const client = await connect();
    const folder = join(dataDir, 'artifacts');
    const link = join(dataDir, 'link.txt');
    symlinkSync(join(testHost.scratch, 'workspace'), link);
    for (const extra of [folder, link]) {
      const content = await callArtifacts(client, { name: 'odd', extra });
      expect(content.filter((block) => block.type === 'resource_link')).toHaveLength(2);
    }
    expect(warnings).toEqual([
      `test_artifacts returned the artifact ${folder}, not linked: it is not a regular file`,
      `test_artifacts returned the artifact ${link}, not linked: it is a symbolic link, which is never followed`,
    ]);
    unlinkSync(link);
  });

  it('lists the artifacts this connection was sent, newest first', async () => {
    const client = await connect();
    expect((await client.listResources()).resources).toEqual([]);
    await callArtifacts(client, { name: 'first' });
    await callArtifacts(client, { name: 'second' });
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([
      'toolsys://data/artifacts/second.log',
      'toolsys://data/artifacts/second.png',
      'toolsys://data/artifacts/first.log',
      'toolsys://data/artifacts/first.png',
    ]);
    expect(resources[1]).toMatchObject({ name: 'second.png', mimeType: 'image/png' });
    // Artifacts are offered as one template (the caller's own, by path).
    expect(
      (await client.listResourceTemplates()).resourceTemplates.map(
        (template) => template.uriTemplate,
      ),
    ).toEqual(['toolsys://data/{+path}']);
    const other = await connect();
    expect((await other.listResources()).resources).toEqual([]);
  });

  it.each([
    ['toolsys://data/../secret.txt', 'it has an empty, "." or ".." path segment'],
    [
      'toolsys://data/artifacts/%2E%2E/%2E%2E/secret.txt',
      'it has an empty, "." or ".." path segment',
    ],
    ['toolsys://data/..%2Fsecret.txt', 'a path segment holds an encoded "/", "\\" or NUL'],
  ])('refuses %s', async (uri, reason) => {
    const client = await connect();
    await expect(client.readResource({ uri })).rejects.toThrow(
      `MCP error -32602: Cannot read ${uri}: ${reason}. This server serves only the toolsys://data/… links it returned in tool results.`,
    );
  });

  it('answers a URI no offering has, such as file:///etc/passwd, as not found', async () => {
    const client = await connect();
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(
      'MCP error -32602: Resource file:///etc/passwd not found.',
    );
  });

  it('refuses a file of the data directory that no tool returned', async () => {
    const client = await connect();
    writeFileSync(join(dataDir, 'not-linked.txt'), 'private');
    await expect(client.readResource({ uri: 'toolsys://data/not-linked.txt' })).rejects.toThrow(
      'MCP error -32602: Resource toolsys://data/not-linked.txt not found: this server did not return it as an artifact',
    );
  });

  it('refuses a linked file replaced by a symbolic link to a file outside', async () => {
    const client = await connect();
    await callArtifacts(client, { name: 'swapped' });
    const outside = join(testHost.scratch, 'outside.txt');
    writeFileSync(outside, 'outside');
    const linked = join(dataDir, 'artifacts/swapped.log');
    unlinkSync(linked);
    symlinkSync(outside, linked);
    await expect(
      client.readResource({ uri: 'toolsys://data/artifacts/swapped.log' }),
    ).rejects.toThrow(
      'MCP error -32602: Cannot read toolsys://data/artifacts/swapped.log: it is a symbolic link, which is never followed. Links are never followed; call the tool again to produce a new file.',
    );
  });

  it('refuses a linked file reached through a folder replaced by a link to the outside', async () => {
    const client = await connect();
    await callArtifacts(client, { name: 'moved' });
    // The folder is swapped for a link to a folder outside holding a file of the same name.
    const outsideFolder = join(testHost.scratch, 'elsewhere');
    mkdirSync(outsideFolder);
    writeFileSync(join(outsideFolder, 'moved.log'), 'outside');
    rmSync(join(dataDir, 'artifacts'), { recursive: true });
    symlinkSync(outsideFolder, join(dataDir, 'artifacts'), 'dir');
    await expect(
      client.readResource({ uri: 'toolsys://data/artifacts/moved.log' }),
    ).rejects.toThrow(
      'MCP error -32602: Cannot read toolsys://data/artifacts/moved.log: it leads outside the data directory through a link. Only files inside the data directory are served; call the tool again.',
    );
    unlinkSync(join(dataDir, 'artifacts'));
  });

  it('says a linked file that was deleted is gone and how to get a new one', async () => {
    const client = await connect();
    await callArtifacts(client, { name: 'deleted' });
    unlinkSync(join(dataDir, 'artifacts/deleted.log'));
    await expect(
      client.readResource({ uri: 'toolsys://data/artifacts/deleted.log' }),
    ).rejects.toThrow(
      'MCP error -32602: Cannot read toolsys://data/artifacts/deleted.log: the file does not exist (any more). Call the tool again to produce a new file.',
    );
  });
});
