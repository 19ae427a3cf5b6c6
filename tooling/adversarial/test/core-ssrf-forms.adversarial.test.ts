import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHostPolicy } from '@toolsys/app-browser';
import {
  type PipelineToolExecutor,
  renderResult,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createNetworkTools } from '@toolsys/core-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedExecutor } from './support/executor.js';

/*
 * web_fetch and http_request on a deployment that allows private networks (so the local server
 * below is reachable): the page redirects to cloud metadata endpoints written in other encodings,
 * and a host name resolves to one. Every such request is refused before a connection; a literal
 * IPv4-mapped loopback address is refused where loopback is.
 */

const METADATA_TARGETS = [
  'http://169.254.170.2/v2/credentials',
  'http://169.254.170.23/v1/credentials',
  'http://[fd00:ec2::23]/',
  'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
  'http://[2002:a9fe:a9fe::1]/latest/meta-data/',
  'http://[::ffff:a9fe:aa02]/v2/credentials',
  'http://[::169.254.169.254]/',
  'http://2852039166/latest/meta-data/',
  'http://169.254.1.1/',
  'http://[fe80::1]/',
];

let server: Server;
let origin: string;
let workspace: string;
const hits: string[] = [];

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-adv-core-ssrf-')));
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    const target = new URL(request.url ?? '/', 'http://x').searchParams.get('to');
    if (target !== null) {
      response.writeHead(302, { location: target });
      response.end();
      return;
    }
    response.end('local page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(workspace, { recursive: true, force: true });
});

function executor(allowPrivateNetwork: boolean | string[]): PipelineToolExecutor {
  const tools = createNetworkTools({
    workspaceRoot: workspace,
    allowPrivateNetwork,
    requestTimeoutMs: 3_000,
    resolveHost: async (host) =>
      host === 'metadata.test'
        ? [{ address: '64:ff9b::a9fe:aa02', family: 6 }]
        : host === 'imds6.test'
          ? [{ address: 'fd00:ec2::23', family: 6 }]
          : [{ address: '127.0.0.1', family: 4 }],
  });
  return gatedExecutor({ tools, answer: 'allow_once' }).executor;
}

function expectRefused(result: ToolResult, label: string): void {
  expect(result.ok, `${label}: ${renderResult(result)}`).toBe(false);
  if (!result.ok) expect(result.error.code, label).toBe('PERMISSION_DENIED');
}

describe('metadata endpoints stay closed when private networks are allowed', () => {
  const tools = () => executor(true);

  it('the local server itself is reachable (private networks allowed)', async () => {
    const result = await tools().execute('web_fetch', { url: `${origin}/` });
    expect(renderResult(result)).toContain('local page');
  });

  it.each(METADATA_TARGETS)('web_fetch refuses a redirect to %s', async (target) => {
    const result = await tools().execute('web_fetch', {
      url: `${origin}/?to=${encodeURIComponent(target)}`,
    });
    expectRefused(result, target);
  });

  it.each(METADATA_TARGETS)('http_request refuses %s', async (target) => {
    expectRefused(await tools().execute('http_request', { url: target }), target);
  });

  it.each(['metadata.test', 'imds6.test'])(
    'http_request refuses %s, which resolves to a metadata address',
    async (host) => {
      expectRefused(await tools().execute('http_request', { url: `http://${host}/` }), host);
    },
  );
});

describe('loopback in other spellings', () => {
  it.each([
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::127.0.0.1]',
    '[64:ff9b::7f00:1]',
    '2130706433',
    '0x7f.1',
    '127.0.0.1.',
  ])('http_request to %s is refused like 127.0.0.1', async (host) => {
    const port = (server.address() as AddressInfo).port;
    const before = hits.length;
    const result = await executor(false).execute('http_request', {
      url: `http://${host}:${port}/`,
    });
    expectRefused(result, host);
    expect(hits.length).toBe(before);
  });
});

describe('the browser host block list compares canonical addresses', () => {
  it.each([
    '[::ffff:127.0.0.1]',
    '::ffff:7f00:1',
    '[::127.0.0.1]',
    '2130706433',
    '0x7f.0.0.1',
    '0177.0.0.1',
    '127.0.0.1.',
  ])('blockedHosts ["127.0.0.1"] blocks %s', (host) => {
    const policy = createHostPolicy({ blockedHosts: ['127.0.0.1'] });
    expect(policy(host)).toMatch(/blocked/);
  });

  it('a trailing dot does not escape a blocked name or its subdomains', () => {
    const policy = createHostPolicy({ blockedHosts: ['admin.example.com', '*.tracker.test'] });
    expect(policy('ADMIN.example.com.')).toMatch(/blocked/);
    expect(policy('a.tracker.test.')).toMatch(/blocked/);
  });
});
