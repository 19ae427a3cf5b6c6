import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  createToolExecutor,
  type ToolEvent,
  ToolRegistry,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { listenOnLoopback } from '@toolsys/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkToolsOptions } from '../src/index.js';
import { createNetworkTools } from '../src/tools/network/index.js';
import type { SearchBackend } from '../src/tools/network/search-backend.js';

/** Everything the local server saw, so tests can prove a refused call sent no traffic. */
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];

const FILE_BYTES = Buffer.alloc(700 * 1024);
for (let index = 0; index < FILE_BYTES.length; index++) FILE_BYTES[index] = (index * 31) % 251;
const FILE_SHA256 = createHash('sha256').update(FILE_BYTES).digest('hex');

const ARTICLE = `<!doctype html><html><head><title>Gardening notes</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Growing tomatoes</h1>
<p>Tomatoes need <strong>full sun</strong> and regular watering. Read the <a href="/guide">full guide</a>.</p>
${'<p>Water deeply twice a week and mulch to keep the soil moist through the summer months.</p>'.repeat(12)}
<ul><li>Stake early</li><li>Prune suckers</li></ul></article>
<script>window.tracking = true;</script></body></html>`;

let interruptNextFlaky = true;

function serveFile(request: IncomingMessage, response: ServerResponse, interrupt: boolean): void {
  const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
  const start = range ? Number(range[1]) : 0;
  if (start >= FILE_BYTES.length) {
    response.writeHead(416, { 'content-range': `bytes */${FILE_BYTES.length}` });
    response.end();
    return;
  }
  const slice = FILE_BYTES.subarray(start);
  response.writeHead(range ? 206 : 200, {
    'content-type': 'application/octet-stream',
    'content-length': String(slice.length),
    'accept-ranges': 'bytes',
    ...(range
      ? { 'content-range': `bytes ${start}-${FILE_BYTES.length - 1}/${FILE_BYTES.length}` }
      : {}),
  });
  if (interrupt) {
    response.write(slice.subarray(0, 300 * 1024), () => response.socket?.destroy());
    return;
  }
  response.end(slice);
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
  const url = new URL(request.url ?? '/', 'http://localhost');
  switch (url.pathname) {
    case '/article':
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(ARTICLE);
      return;
    case '/gzip-text':
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(gzipSync('line\n'.repeat(400)));
      return;
    case '/latin1':
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        Buffer.from(
          '<html><head><meta charset="iso-8859-1"><title>Caf\u00e9</title></head><body><p>Cr\u00e8me br\u00fbl\u00e9e</p></body></html>',
          'latin1',
        ),
      );
      return;
    case '/json':
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ hello: 'world' }));
      return;
    case '/binary':
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
      return;
    case '/echo': {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(201, {
          'content-type': 'application/json',
          'set-cookie': 'session=secret-cookie-value; HttpOnly',
        });
        response.end(
          JSON.stringify({
            method: request.method,
            contentType: request.headers['content-type'] ?? null,
            hasAuthorization: request.headers.authorization === 'Bearer top-secret-token',
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      return;
    }
    case '/redirect-metadata':
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
      return;
    case '/redirect-json':
      response.writeHead(301, { location: '/json' });
      response.end();
      return;
    case '/hang':
      // Never answers: the client's time limit must end the call.
      return;
    case '/missing':
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('nope');
      return;
    case '/file':
      serveFile(request, response, false);
      return;
    case '/norange-file':
      // A server without Range support: always the whole file with 200.
      response.writeHead(200, { 'content-length': String(FILE_BYTES.length) });
      response.end(FILE_BYTES);
      return;
    case '/flaky-file': {
      const interrupt = interruptNextFlaky;
      interruptNextFlaky = false;
      serveFile(request, response, interrupt);
      return;
    }
    case '/search':
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          query: url.searchParams.get('q'),
          results: [
            { title: 'Tomato guide', url: 'https://example.org/tomato', content: 'How to grow' },
            { title: 'Second', url: 'https://example.org/2', content: 'More' },
          ],
        }),
      );
      return;
    default:
      response.writeHead(404);
      response.end();
  }
}

let server: Server;
let base: string;
let port: number;
let workspace: string;

beforeAll(async () => {
  server = createServer(handle);
  port = await listenOnLoopback(server);
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolvePromise) => server.close(resolvePromise));
});

beforeEach(async () => {
  seen.length = 0;
  workspace = await mkdtemp(join(tmpdir(), 'toolsys-network-'));
  return () => rm(workspace, { recursive: true, force: true });
});

function executorFor(options: Omit<NetworkToolsOptions, 'workspaceRoot'> = {}) {
  const registry = new ToolRegistry();
  registry.registerAll(createNetworkTools({ workspaceRoot: workspace, ...options }));
  return createToolExecutor({ registry });
}

const allowLocal = () => executorFor({ allowPrivateNetwork: ['127.0.0.1'] });

describe('default SSRF guard', () => {
  it.each([
    ['127.0.0.1', () => `${base}/json`],
    ['10.0.0.1', () => 'http://10.0.0.1/'],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses %s with PERMISSION_DENIED before connecting', async (address, url) => {
    const executor = executorFor({
      resolveHost: async () => {
        throw new Error('no lookup is expected for a literal address');
      },
    });
    for (const tool of ['http_request', 'web_fetch', 'download_file']) {
      const result = await executor.execute(tool, { url: url(), path: 'out.bin' });
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.code).toBe('PERMISSION_DENIED');
      expect(result.error.message).toContain(address);
    }
    expect(seen).toHaveLength(0);
  });

  it('refuses a host name that resolves to loopback, checking the resolved address', async () => {
    const result = await executorFor().execute('web_fetch', {
      url: `http://localhost:${port}/json`,
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(!result.ok && result.error.message).toMatch(/localhost \((127\.0\.0\.1|::1)\)/);
    expect(seen).toHaveLength(0);
  });

  it('connects to the address the guard checked, not to a second DNS answer', async () => {
    const executor = executorFor({
      allowPrivateNetwork: ['127.0.0.1'],
      resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const result = await executor.execute('http_request', { url: `http://api.test:${port}/json` });
    expect(result).toMatchObject({ ok: true, data: { status: 200, json: { hello: 'world' } } });
    expect(seen[0]?.headers.host).toBe(`api.test:${port}`);
  });
});

describe('web_fetch', () => {
  it('returns the readable article as Markdown with absolute links', async () => {
    const result = await allowLocal().execute('web_fetch', { url: `${base}/article` });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.content).toContain(`URL: ${base}/article`);
    expect(result.content).toContain('Title: Gardening notes');
    expect(result.content).toContain('**full sun**');
    expect(result.content).toContain(`[full guide](${base}/guide)`);
    expect(result.content).toContain('-   Stake early');
    expect(result.content).not.toContain('window.tracking');
    expect(result.content).not.toContain('About');
    // The structured content carries the article too, between the same markers as the text.
    const { content } = result.data as { content: string };
    expect(content).toMatch(
      /<untrusted-web-page-content>\n[\s\S]*\*\*full sun\*\*[\s\S]*\n<\/untrusted-web-page-content>$/,
    );
    expect(result.content).toContain(content);
  });

  it('decodes a page in the encoding its meta tag names', async () => {
    const result = await allowLocal().execute('web_fetch', { url: `${base}/latin1` });
    expect(result.ok && result.content).toContain('Crème brûlée');
  });

  it('pages a long document by offset', async () => {
    const executor = allowLocal();
    const first = await executor.execute('web_fetch', {
      url: `${base}/gzip-text`,
      max_length: 500,
    });
    expect(first).toMatchObject({ ok: true, data: { totalLength: 2000, nextOffset: 500 } });
    expect(first.ok && first.content).toContain(
      '[Truncated: showing characters 0-500 of 2000. Call web_fetch again with offset=500 for the rest.]',
    );
    const last = await executor.execute('web_fetch', {
      url: `${base}/gzip-text`,
      offset: 1500,
      max_length: 500,
    });
    expect(last.ok && last.content).not.toContain('Truncated');
    expect(last.ok && last.data).not.toHaveProperty('nextOffset');
  });

  it('refuses an offset past the end naming the field', async () => {
    const result = await allowLocal().execute('web_fetch', { url: `${base}/json`, offset: 9999 });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'offset' },
    });
  });

  it('re-checks every redirect and refuses one that points at cloud metadata', async () => {
    const result = await allowLocal().execute('web_fetch', { url: `${base}/redirect-metadata` });
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(seen.map((entry) => entry.url)).toEqual(['/redirect-metadata']);
  });

  it('follows an allowed redirect', async () => {
    const result = await allowLocal().execute('web_fetch', { url: `${base}/redirect-json` });
    expect(result).toMatchObject({ ok: true, data: { url: `${base}/json` } });
    expect(result.ok && result.content).toContain('{"hello":"world"}');
  });

  it('maps 404 to NOT_FOUND and a binary body to UNSUPPORTED', async () => {
    const executor = allowLocal();
    expect(await executor.execute('web_fetch', { url: `${base}/missing` })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', details: { status: 404 } },
    });
    const binary = await executor.execute('web_fetch', { url: `${base}/binary` });
    expect(binary).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED' } });
    expect(!binary.ok && binary.error.hint).toContain('download_file');
  });

  it('rejects a bad URL and a non-http scheme as INVALID_ARGUMENT naming url', async () => {
    const executor = allowLocal();
    for (const url of ['not a url', 'file:///etc/passwd']) {
      expect(await executor.execute('web_fetch', { url })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', field: 'url' },
      });
    }
    expect(await executor.execute('web_fetch', { url: 42 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'url' },
    });
  });

  it('cuts a body larger than the size cap and says so', async () => {
    const executor = executorFor({ allowPrivateNetwork: ['127.0.0.1'], maxResponseBytes: 1000 });
    const result = await executor.execute('web_fetch', { url: `${base}/gzip-text` });
    expect(result).toMatchObject({ ok: true, data: { totalLength: 1000 } });
    expect(result.ok && result.content).toContain('larger than 1000 bytes');
  });
});

describe('http_request', () => {
  it('sends a JSON body with headers and returns status, headers and parsed JSON', async () => {
    const result = await allowLocal().execute('http_request', {
      url: `${base}/echo`,
      method: 'POST',
      headers: { Authorization: 'Bearer top-secret-token' },
      json: { name: 'tomato' },
    });
    expect(result).toMatchObject({
      ok: true,
      data: {
        status: 201,
        json: {
          method: 'POST',
          contentType: 'application/json',
          hasAuthorization: true,
          body: '{"name":"tomato"}',
        },
      },
    });
    const rendered = JSON.stringify(result);
    expect(rendered).not.toContain('top-secret-token');
    expect(rendered).not.toContain('secret-cookie-value');
    expect(result.ok && result.content).toContain('set-cookie: [redacted]');
  });

  it('sends a text body with PUT', async () => {
    const result = await allowLocal().execute('http_request', {
      url: `${base}/echo`,
      method: 'PUT',
      body: 'plain text',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(result).toMatchObject({
      ok: true,
      data: { json: { method: 'PUT', body: 'plain text', contentType: 'text/plain' } },
    });
  });

  it('keeps Authorization and cookies out of trace spans', async () => {
    const registry = new ToolRegistry();
    registry.registerAll(
      createNetworkTools({ workspaceRoot: workspace, allowPrivateNetwork: ['127.0.0.1'] }),
    );
    const traces = new ToolTraceRecorder();
    const executor = createToolExecutor({ registry, traces });
    const result = await executor.execute('http_request', {
      url: `${base}/echo`,
      method: 'POST',
      headers: { Authorization: 'Bearer top-secret-token', Cookie: 'sid=cookie-secret' },
      body: 'x',
    });
    expect(result.ok).toBe(true);
    const exported = traces.exportJson();
    expect(exported).toContain('http_request');
    expect(exported).not.toContain('top-secret-token');
    expect(exported).not.toContain('cookie-secret');
  });

  it('returns a non-2xx status as a result, not an error', async () => {
    const result = await allowLocal().execute('http_request', { url: `${base}/missing` });
    expect(result).toMatchObject({ ok: true, data: { status: 404, body: 'nope' } });
  });

  it('returns the redirect itself when follow_redirects is false', async () => {
    const result = await allowLocal().execute('http_request', {
      url: `${base}/redirect-metadata`,
      follow_redirects: false,
    });
    expect(result).toMatchObject({ ok: true, data: { status: 302 } });
    expect(seen).toHaveLength(1);
  });

  it('rejects bad arguments naming the field', async () => {
    const executor = allowLocal();
    expect(
      await executor.execute('http_request', {
        url: `${base}/echo`,
        method: 'POST',
        json: {},
        body: 'x',
      }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'body' } });
    expect(
      await executor.execute('http_request', { url: `${base}/echo`, method: 'BREW' }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'method' } });
    expect(
      await executor.execute('http_request', { url: `${base}/echo`, headers: { 'bad name': 'x' } }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'headers.bad name' } });
    expect(
      await executor.execute('http_request', { url: `${base}/echo`, body: 'x' }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'body' } });
    expect(seen).toHaveLength(0);
  });

  it('ends a request the server never answers with TIMEOUT', async () => {
    const executor = executorFor({ allowPrivateNetwork: ['127.0.0.1'], requestTimeoutMs: 300 });
    const result = await executor.execute('http_request', { url: `${base}/hang` });
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    const pending = allowLocal().execute(
      'web_fetch',
      { url: `${base}/hang` },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toMatchObject({
      ok: false,
      error: { code: 'EXECUTION_FAILED', details: { cancelled: true } },
    });
  });

  it('reports an unreachable server as EXECUTION_FAILED', async () => {
    const closed = createServer();
    const closedPort = await listenOnLoopback(closed);
    await new Promise((resolvePromise) => closed.close(resolvePromise));
    const result = await allowLocal().execute('http_request', {
      url: `http://127.0.0.1:${closedPort}/`,
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'EXECUTION_FAILED' } });
    expect(!result.ok && result.error.message).toContain('ECONNREFUSED');
  });
});

/** The private part file of a download of `url` to `path` (a hidden name, never `<path>.part`). */
function partFileOf(url: string, path: string): string {
  const key = createHash('sha256').update(`${url}\0${path}`).digest('hex').slice(0, 16);
  return join(workspace, `.${path}.download-${key}.part`);
}

describe('download_file', () => {
  it('streams a file into the workspace with progress and verifies its checksum', async () => {
    const events: ToolEvent[] = [];
    const result = await allowLocal().execute(
      'download_file',
      { url: `${base}/file`, path: 'downloads/data.bin', checksum: `sha256:${FILE_SHA256}` },
      { onEvent: (event) => events.push(event) },
    );
    expect(result).toMatchObject({
      ok: true,
      data: {
        path: 'downloads/data.bin',
        bytes: FILE_BYTES.length,
        resumedFrom: 0,
        sha256: FILE_SHA256,
      },
    });
    expect((await readFile(join(workspace, 'downloads/data.bin'))).equals(FILE_BYTES)).toBe(true);
    const progress = events.filter((event) => event.type === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)).toMatchObject({
      progress: FILE_BYTES.length,
      total: FILE_BYTES.length,
    });
  });

  it('resumes an interrupted download with a Range request', async () => {
    interruptNextFlaky = true;
    const executor = allowLocal();
    const args = { url: `${base}/flaky-file`, path: 'flaky.bin' };
    const first = await executor.execute('download_file', args);
    expect(first).toMatchObject({
      ok: false,
      error: { code: 'EXECUTION_FAILED', retryable: true },
    });
    expect(!first.ok && first.error.hint).toContain('resumes');
    const partialSize = (await stat(partFileOf(args.url, 'flaky.bin'))).size;
    expect(partialSize).toBeGreaterThan(0);
    expect(partialSize).toBeLessThan(FILE_BYTES.length);
    const second = await executor.execute('download_file', args);
    expect(second).toMatchObject({
      ok: true,
      data: { resumedFrom: partialSize, sha256: FILE_SHA256 },
    });
    expect(seen.at(-1)?.headers.range).toBe(`bytes=${partialSize}-`);
    expect((await readFile(join(workspace, 'flaky.bin'))).equals(FILE_BYTES)).toBe(true);
  });

  it('starts over when the server ignores the Range request', async () => {
    await writeFile(partFileOf(`${base}/norange-file`, 'plain.bin'), 'stale partial bytes');
    const result = await allowLocal().execute('download_file', {
      url: `${base}/norange-file`,
      path: 'plain.bin',
    });
    expect(result).toMatchObject({ ok: true, data: { resumedFrom: 0, sha256: FILE_SHA256 } });
    expect(seen[0]?.headers.range).toBe('bytes=19-');
    expect((await readFile(join(workspace, 'plain.bin'))).equals(FILE_BYTES)).toBe(true);
  });

  it('discards the file on a checksum mismatch', async () => {
    const result = await allowLocal().execute('download_file', {
      url: `${base}/file`,
      path: 'bad.bin',
      checksum: `sha256:${'0'.repeat(64)}`,
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'EXECUTION_FAILED', retryable: false },
    });
    await expect(stat(join(workspace, 'bad.bin'))).rejects.toThrow();
    expect((await readdir(workspace)).filter((name) => name.includes('bad.bin'))).toEqual([]);
  });

  it('refuses paths outside the workspace, including through a symlink', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'toolsys-outside-'));
    try {
      await symlink(outside, join(workspace, 'escape'));
      const executor = allowLocal();
      for (const path of ['../evil.bin', '/tmp/evil.bin', 'escape/evil.bin']) {
        expect(
          await executor.execute('download_file', { url: `${base}/file`, path }),
        ).toMatchObject({
          ok: false,
          error: { code: 'PERMISSION_DENIED', field: 'path' },
        });
      }
      expect(seen).toHaveLength(0);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('does not overwrite an existing file unless asked', async () => {
    await writeFile(join(workspace, 'keep.bin'), 'old');
    const executor = allowLocal();
    expect(
      await executor.execute('download_file', { url: `${base}/file`, path: 'keep.bin' }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'path' } });
    expect(await readFile(join(workspace, 'keep.bin'), 'utf8')).toBe('old');
    expect(
      await executor.execute('download_file', {
        url: `${base}/file`,
        path: 'keep.bin',
        overwrite: true,
      }),
    ).toMatchObject({ ok: true });
  });

  it('refuses a file above the download limit', async () => {
    const executor = executorFor({ allowPrivateNetwork: ['127.0.0.1'], maxDownloadBytes: 1024 });
    expect(
      await executor.execute('download_file', { url: `${base}/file`, path: 'big.bin' }),
    ).toMatchObject({ ok: false, error: { code: 'EXECUTION_FAILED', retryable: false } });
  });

  it('rejects a malformed checksum naming the field', async () => {
    expect(
      await allowLocal().execute('download_file', {
        url: `${base}/file`,
        path: 'x',
        checksum: 'crc:1',
      }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'checksum' } });
    expect(
      await allowLocal().execute('download_file', {
        url: `${base}/file`,
        path: 'x',
        checksum: 'sha256:abc',
      }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', field: 'checksum' } });
    expect(seen).toHaveLength(0);
  });
});

describe('web_search', () => {
  it('says plainly when no backend is configured', async () => {
    const result = await executorFor().execute('web_search', { query: 'tomatoes' });
    expect(result).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED' } });
    expect(!result.ok && result.error.message).toContain('no search backend is configured');
  });

  it('queries a SearXNG JSON API', async () => {
    const result = await executorFor({ searxngUrl: base }).execute('web_search', {
      query: 'tomatoes',
      limit: 1,
    });
    expect(result).toMatchObject({
      ok: true,
      data: {
        backend: 'searxng',
        results: [{ title: 'Tomato guide', url: 'https://example.org/tomato' }],
      },
    });
    expect(seen[0]?.url).toBe('/search?q=tomatoes&format=json');
  });

  it('uses a pluggable backend', async () => {
    const backend: SearchBackend = {
      name: 'fixed',
      search: async (query, { limit }) =>
        [{ title: `About ${query}`, url: 'https://example.org/', snippet: 's' }].slice(0, limit),
    };
    const result = await executorFor({ searchBackend: backend }).execute('web_search', {
      query: 'q',
    });
    expect(result.ok && result.content).toBe('1. About q\n   https://example.org/\n   s');
  });

  it('rejects an empty query naming the field', async () => {
    expect(await executorFor().execute('web_search', { query: '  ' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'query' },
    });
  });
});
