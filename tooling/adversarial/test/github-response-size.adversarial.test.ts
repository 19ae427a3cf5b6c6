import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BUILTIN_PACKAGES, type Deployment, type ToolHost } from '@toolsys/host';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  authenticatedUser,
  contentFile,
} from '../../../packages/app-github/test/fixtures/github-responses.js';
import { deployHost } from './support/host.js';
import { expectResponsiveDuring } from './support/responsiveness.js';

// A GitHub API that answers with a body without end (a hostile GitHub Enterprise Server, a broken
// proxy): before, Octokit read it whole and V8 died of a fatal out-of-memory error, taking the MCP
// server and every session with it. The real host composes app-github against a local server that
// streams such bodies; each call must end quickly with a clear error after reading a bounded number
// of bytes, while another session keeps being answered.

const TOKEN = 'ghp_adversarialtokenadversarialtoken00';
const MiB = 1024 * 1024;
/** Reading 10 MiB takes well under a second; the slack is for a loaded CI machine. */
const CALL_LIMIT_MS = 10_000;
/** Safety stop of the hostile server (never reached when the client stops reading). */
const HARD_STOP_BYTES = 640 * MiB;
const CHUNK = Buffer.alloc(256 * 1024, 'a');

interface Stream {
  /** Bytes the server managed to write before the client stopped reading. */
  sent: number;
  done: Promise<void>;
}

type Behaviour = (request: IncomingMessage, response: ServerResponse) => Stream | undefined;

let scratch: string;
let server: Server;
let baseUrl: string;
let behaviour: Behaviour;
let streams: Stream[];
let deployment: Deployment;
let host: ToolHost;

/** GitHub's usual headers (rate limit, media type) on a 200 JSON answer. */
const GITHUB_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'x-github-media-type': 'github.v3; format=json',
  'x-ratelimit-limit': '5000',
  'x-ratelimit-remaining': '4999',
  'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
};

/** Writes `prefix` then `a`s without end (up to the safety stop), respecting back-pressure. */
function endless(response: ServerResponse, status: number, prefix: string, headers = {}): Stream {
  response.writeHead(status, { ...GITHUB_HEADERS, ...headers });
  const stream: Stream = { sent: 0, done: Promise.resolve() };
  stream.done = (async () => {
    response.write(prefix);
    while (!response.destroyed && stream.sent < HARD_STOP_BYTES) {
      stream.sent += CHUNK.length;
      if (!response.write(CHUNK)) {
        await new Promise<void>((resolve) => {
          response.once('drain', resolve);
          response.once('close', resolve);
        });
      }
    }
    response.end();
  })();
  return stream;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const stream = behaviour(request, response);
    if (stream) streams.push(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adversarial-github-'));
  ({ deployment, host } = await deployHost(scratch, {
    config: { packages: { 'app-github': { baseUrl, readOnly: true } } },
    packages: BUILTIN_PACKAGES.filter((entry) => ['core', 'app-github'].includes(entry.key)),
    env: { PATH: process.env.PATH ?? '', GITHUB_TOKEN: TOKEN },
  }));
  // One ordinary answer first, so the client is built and warm before anything is timed.
  behaviour = (_request, response) => {
    const body = JSON.stringify(authenticatedUser);
    response.writeHead(200, { ...GITHUB_HEADERS, 'content-length': Buffer.byteLength(body) });
    response.end(body);
    return undefined;
  };
  const warm = await host.call('github_get_user', {}, { sessionId: 'warm-up', source: 'mcp' });
  expect(warm.ok).toBe(true);
});

afterAll(async () => {
  await deployment?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

beforeEach(() => {
  streams = [];
});

function call(toolId: string, args: unknown, sessionId = 'attacker') {
  return host.call(toolId, args, { sessionId, source: 'mcp' });
}

const ping = () => call('get_time', {}, 'another-user');

/** Runs the attack while another session pings; returns the result, the time and the bytes sent. */
async function attack(toolId: string, args: unknown) {
  const heapBefore = process.memoryUsage().heapUsed;
  let elapsedMs = 0;
  const result = await expectResponsiveDuring(async () => {
    const started = performance.now();
    const answer = await call(toolId, args);
    elapsedMs = performance.now() - started;
    return answer;
  }, ping);
  await Promise.all(streams.map((stream) => stream.done));
  const sent = streams.reduce((total, stream) => total + stream.sent, 0);
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
  return { result, elapsedMs, sent, heapGrowth };
}

describe('a GitHub API answering without end', () => {
  it('an endless JSON body ends the call with a clear error after a bounded read', async () => {
    behaviour = (_request, response) => endless(response, 200, '{"login":"');
    const { result, elapsedMs, sent, heapGrowth } = await attack('github_get_user', {
      username: 'octocat',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('EXECUTION_FAILED');
    expect(result.error.message).toMatch(/larger than [\d,]+ bytes/);
    expect(result.error.retryable).toBe(false);
    expect(elapsedMs).toBeLessThan(CALL_LIMIT_MS);
    // The default limit plus what sits in socket buffers; nowhere near the gigabytes offered.
    expect(sent).toBeLessThan(48 * MiB);
    expect(heapGrowth).toBeLessThan(200 * MiB);
  }, 60_000);

  it('a declared 3 GB body is refused before it is read', async () => {
    behaviour = (_request, response) =>
      endless(response, 200, '[', { 'content-length': String(3 * 1024 * MiB) });
    const { result, sent } = await attack('github_list_repos', {});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/larger than [\d,]+ bytes/);
    expect(sent).toBeLessThan(16 * MiB);
  }, 60_000);

  it('a compressed body that inflates without end is stopped by its inflated size', async () => {
    // Gzip members may follow one another; each of these inflates 1 KiB to 1 MiB.
    const member = gzipSync(Buffer.alloc(MiB, 'a'), { level: 9 });
    behaviour = (_request, response) => {
      response.writeHead(200, { ...GITHUB_HEADERS, 'content-encoding': 'gzip' });
      const stream: Stream = { sent: 0, done: Promise.resolve() };
      stream.done = (async () => {
        response.write(gzipSync('{"login":"'));
        for (let inflated = 0; !response.destroyed && inflated < HARD_STOP_BYTES; inflated += MiB) {
          stream.sent += member.length;
          if (!response.write(member)) {
            await new Promise<void>((resolve) => {
              response.once('drain', resolve);
              response.once('close', resolve);
            });
          }
        }
        response.end();
      })();
      return stream;
    };
    const { result, elapsedMs, heapGrowth } = await attack('github_get_user', {
      username: 'octocat',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/larger than [\d,]+ bytes/);
    // The server compresses faster than the socket pushes back, so what it fed its compressor
    // says nothing here; what the client holds does.
    expect(elapsedMs).toBeLessThan(CALL_LIMIT_MS);
    expect(heapGrowth).toBeLessThan(200 * MiB);
  }, 60_000);

  it('an endless error body is bounded too', async () => {
    behaviour = (_request, response) => endless(response, 502, '{"message":"');
    const { result, sent } = await attack('github_list_issues', { owner: 'octo', repo: 'app' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/larger than [\d,]+ bytes/);
    expect(sent).toBeLessThan(48 * MiB);
  }, 60_000);

  it('a file read stops at the file-size limit, far below the general one', async () => {
    // The contents API says the file is small and sends it through the blob API; the blob answer
    // then never ends. The blob limit follows maxFileBytes (1 MiB by default) in base64.
    behaviour = (request, response) => {
      if (request.url?.includes('/contents/')) {
        const body = JSON.stringify({
          ...contentFile,
          size: 1_000,
          content: '',
          encoding: 'none',
        });
        response.writeHead(200, { ...GITHUB_HEADERS, 'content-length': Buffer.byteLength(body) });
        response.end(body);
        return undefined;
      }
      return endless(response, 200, '{"encoding":"base64","content":"');
    };
    const { result, sent } = await attack('github_read_file', {
      owner: 'octo',
      repo: 'app',
      path: 'README.md',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/larger than [\d,]+ bytes/);
    expect(sent).toBeLessThan(8 * MiB);
  }, 60_000);
});
