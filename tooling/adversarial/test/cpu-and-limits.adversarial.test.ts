import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  ToolRegistry,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { CpuToolPool, createCoreTools } from '@toolsys/core-tools';
import { type Deployment, type HttpServer, serveHttp, type ToolHost } from '@toolsys/host';
import { initializeRequest, listenOnLoopback } from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost, postMcp } from './support/host.js';

// Attacks on the CPU-bound tools and the argument limits, against the real host (the core package
// composed as `toolsys serve` composes it, the real HTTP server on 127.0.0.1) and against the core
// executor with real worker threads. Each asserts the attack is refused or stopped at its limit
// and that the server keeps answering meanwhile.

const RUNAWAY = 'f(n)=n<1?1:f(n-1)+f(n-1); f(40)';
const RUNAWAY_LIMIT_MS = 5_000;

let scratch: string;
let deployment: Deployment;
let host: ToolHost;
let http: HttpServer;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adversarial-cpu-'));
  ({ deployment, host } = await deployHost(scratch, {
    config: {
      tools: {
        runPolicies: {
          // Only the time limit: the declared policy's retry must not replay a runaway.
          calculate: { timeoutMs: RUNAWAY_LIMIT_MS },
          csv_query: { timeoutMs: 60_000, maxRetries: 0 },
        },
      },
    },
  }));
  http = await serveHttp(host, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await http?.close();
  await deployment?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function call(toolId: string, args: unknown, sessionId = 'attacker') {
  return host.call(toolId, args, { sessionId, source: 'mcp' });
}

/** Longer than the 8 Ki characters of text_transform that run on the calling thread. */
const LONG_TEXT = 'ok '.repeat(4_000);

describe('a runaway calculate (issue item 4)', () => {
  it('ends with TIMEOUT at its limit while other sessions, the dashboard and timers keep answering', async () => {
    // Warm both workers so that their start-up does not count against the 4 s limits below: the
    // first call of a thread loads mathjs (seconds on a loaded machine), under text_transform's
    // default 30 s limit (a text past 8 Ki characters, so that it runs in a worker); then
    // calculate builds its evaluators. From two sessions: one session's calls share one thread.
    const warm = await Promise.all([
      call('text_transform', { text: LONG_TEXT, operation: 'upper' }, 'other'),
      call('text_transform', { text: LONG_TEXT, operation: 'lower' }, 'warm-up'),
    ]);
    expect(warm).toMatchObject([{ ok: true }, { ok: true }]);
    await Promise.all([
      call('calculate', { expression: '1+1' }, 'other'),
      call('calculate', { expression: '2+2' }, 'warm-up'),
    ]);
    let beats = 0;
    const heartbeat = setInterval(() => {
      beats += 1;
    }, 25);
    try {
      const runaway = call('calculate', { expression: RUNAWAY });
      // While it runs: a quick call of another session, the dashboard and the MCP endpoint answer.
      const quick = await call('calculate', { expression: '6*7' }, 'other');
      expect(quick).toMatchObject({ ok: true, content: '42' });
      const dashboard = await fetch(http.dashboardUrl);
      expect(dashboard.status).toBe(200);
      await dashboard.text();
      const initialized = await postMcp(
        http.mcpUrl,
        initializeRequest({ clientName: 'adversarial' }),
      );
      expect(initialized.text).toContain('"result"');
      const beatsBefore = beats;
      const result = await runaway;
      expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
      if (!result.ok) expect(result.error.message).toContain('calculate did not finish within');
      // The event loop was never blocked: the heartbeat kept firing until the limit.
      expect(beats - beatsBefore).toBeGreaterThan(10);
      // One attempt only: the same expression would run out of time again.
      const timedOut = deployment.stack.traces.spans().filter((span) => span.outcome === 'TIMEOUT');
      expect(timedOut).toHaveLength(1);
      // The terminated worker was replaced.
      expect(await call('calculate', { expression: '2^10' })).toMatchObject({
        ok: true,
        content: '1024',
      });
    } finally {
      clearInterval(heartbeat);
    }
  });

  it('stops a mutual recursion the same way, and the pool serves the next call', async () => {
    const result = await call('calculate', {
      expression: 'a(n)=n<1?1:b(n-1)+b(n-1); b(n)=n<1?1:a(n-1)+a(n-1); a(40)',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    // A fresh worker replaces the terminated one (its start is not under calculate's 5 s limit).
    expect(await call('text_transform', { text: LONG_TEXT, operation: 'length' })).toMatchObject({
      ok: true,
      content: String(LONG_TEXT.length),
    });
  });
});

describe('oversized arguments and trace digests (issue item 3)', () => {
  function extraKeys(count: number): Record<string, unknown> {
    const args: Record<string, unknown> = { expression: '1+1' };
    for (let index = 0; index < count; index += 1) args[`k${index}`] = 'x';
    return args;
  }

  it('refuses 150,000 extra keys as INVALID_ARGUMENT naming the limit, before validation', async () => {
    const result = await call('calculate', extraKeys(150_000));
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', retryable: false },
    });
    if (!result.ok) {
      expect(result.error.message).toBe(
        'arguments: more than 10000 keys and array elements in all (the key-count limit of calculate)',
      );
    }
  });

  it('keeps every span a few hundred bytes whatever the keys sent', async () => {
    const traces = deployment.stack.traces;
    for (let round = 0; round < 5; round += 1) await call('calculate', extraKeys(150_000));
    await call('calculate', { expression: '1+1', [`${'k'.repeat(100_000)}`]: 'v' });
    const spans = traces.spans().slice(-6);
    expect(spans).toHaveLength(6);
    for (const span of spans) {
      expect(span.toolId).toBe('calculate');
      expect(JSON.stringify(span).length).toBeLessThan(1_500);
    }
    expect(spans[0]?.argsDigest.omittedFields).toBe(150_001 - 16);
    // The lines written to traces.jsonl are the spans: each stays small too.
    await new Promise((resolve) => setImmediate(resolve));
    const lines = readFileSync(join(scratch, 'data', 'traces.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const line of lines) expect(line.length).toBeLessThan(1_500);
  });

  it('refuses an argument string over the size limit, naming it', async () => {
    const result = await call('text_transform', {
      text: 'a'.repeat(2_000_000),
      operation: 'upper',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    if (!result.ok)
      expect(result.error.message).toMatch(
        /characters in all \(the size limit of text_transform\)$/,
      );
  });
});

describe('deep JSON (issue item 10)', () => {
  const deepText = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

  it('json_transform refuses 100k-deep JSON text with a non-retryable INVALID_ARGUMENT naming the depth limit', async () => {
    const result = await call('json_transform', { input: deepText, operations: [] });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_ARGUMENT',
        field: 'input',
        retryable: false,
        message: 'input: the document is nested more than 128 levels deep (the depth limit)',
      },
    });
  });

  it('json_transform and json_path refuse a 100k-deep structured value the same way', async () => {
    const deepValue = JSON.parse(deepText) as unknown;
    for (const [toolId, args] of [
      ['json_transform', { input: deepValue, operations: [] }],
      ['json_path', { json: deepValue, path: '$' }],
    ] as const) {
      const result = await call(toolId, args);
      expect(result, toolId).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT', retryable: false },
      });
      if (!result.ok) expect(result.error.message).toContain(`(the depth limit of ${toolId})`);
    }
  });

  it('json_path refuses 100k-deep JSON text naming the depth limit', async () => {
    const result = await call('json_path', { json: deepText, path: '$..x' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'json', retryable: false },
    });
    if (!result.ok) expect(result.error.message).toContain('(the depth limit)');
  });

  it('still answers a document at the depth limit', async () => {
    const atLimit = `${'['.repeat(128)}1${']'.repeat(128)}`;
    const result = await call('json_path', { json: atLimit, path: '$' });
    expect(result).toMatchObject({ ok: true, data: { count: 1 } });
  });
});

describe('csv_query on wide tables (issue item 5)', () => {
  const cases: Array<[string, string, number]> = [
    [
      '20,000 duplicate header names',
      `${Array(20_000).fill('name').join(',')}\n${Array(20_000).fill('1').join(',')}\n`,
      20_000,
    ],
    [
      '150,000 unique columns',
      `${Array.from({ length: 150_000 }, (_, i) => `c${i}`).join(',')}\n${Array(150_000).fill('1').join(',')}\n`,
      150_000,
    ],
    [
      '500,000 unique columns',
      `${Array.from({ length: 500_000 }, (_, i) => `c${i.toString(36)}`).join(',')}\n${Array(500_000).fill('v').join(',')}\n`,
      500_000,
    ],
  ];
  for (const [name, csv, width] of cases) {
    it(`answers ${name} well inside the limit, within one result’s budget`, async () => {
      const result = await call('csv_query', { csv, header: 'yes', limit: 1 });
      expect(result).toMatchObject({ ok: true, data: { matchedRows: 1, totalRows: 1 } });
      if (result.ok) {
        const data = result.data as { columns: string[] };
        // One result holds at most 200,000 characters, text and structured data together: a
        // header this wide is cut in the result (its first names kept, each unique), and says so.
        expect(data.columns.length).toBeGreaterThan(1_000);
        expect(data.columns.length).toBeLessThanOrEqual(width);
        expect(new Set(data.columns).size).toBe(data.columns.length);
        if (data.columns.length < width) expect(result.content).toContain('[Result cut:');
        // The text the model reads stays bounded.
        expect(result.content.length).toBeLessThan(110_000);
      }
    });
  }

  it('names the duplicate columns name, name_2 … name_20000', async () => {
    const csv = `${Array(20_000).fill('name').join(',')}\n`;
    const result = await call('csv_query', { csv, header: 'yes', select: ['name_20000'] });
    expect(result).toMatchObject({ ok: true, data: { columns: ['name_20000'] } });
  });
});

describe('calculate exactness (issue item 10)', () => {
  it('says 2^61-1 is prime and writes big integers exactly', async () => {
    expect(await call('calculate', { expression: 'isPrime(2^61-1)' })).toMatchObject({
      ok: true,
      content: 'true',
    });
    expect(await call('calculate', { expression: '2^64 + 1' })).toMatchObject({
      content: '18446744073709551617',
    });
  });
});

describe('caller headers on a cross-origin redirect (issue item 10)', () => {
  let origin: Server;
  let target: Server;
  let received: IncomingHttpHeaders | undefined;
  let pool: CpuToolPool;
  let executor: PipelineToolExecutor;
  let dir: string;

  beforeAll(async () => {
    target = createServer((request, response) => {
      received = request.headers;
      response.end('landed');
    });
    const targetPort = await listenOnLoopback(target);
    origin = createServer((_request, response) => {
      // 127.0.0.1 and localhost are different origins (and different ports here too).
      response.writeHead(302, { location: `http://localhost:${targetPort}/landing` });
      response.end();
    });
    await listenOnLoopback(origin);
    dir = mkdtempSync(join(tmpdir(), 'toolsys-adversarial-redirect-'));
    pool = new CpuToolPool({ maxThreads: 1 });
    const registry = new ToolRegistry();
    executor = createToolExecutor({ registry, traces: new ToolTraceRecorder() });
    registry.registerAll(
      createCoreTools({
        workspaceRoot: dir,
        dataDir: join(dir, 'data'),
        executor,
        cpuPool: pool,
        network: { allowPrivateNetwork: ['127.0.0.1', 'localhost', '::1'] },
      }),
      { owner: 'core' },
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => origin?.close(resolve));
    await new Promise((resolve) => target?.close(resolve));
    await pool?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('forwards only the safe caller headers, never X-Api-Key or any other credential', async () => {
    const port = (origin.address() as AddressInfo).port;
    const result = await executor.execute('http_request', {
      url: `http://127.0.0.1:${port}/start`,
      headers: {
        'X-Api-Key': 'FAKE_KEY_1',
        'X-Auth-Token': 'FAKE_KEY_2',
        'Private-Token': 'FAKE_KEY_3',
        Authorization: 'Bearer FAKE_KEY_4',
        Cookie: 'session=FAKE_KEY_5',
        'Accept-Language': 'fr',
        'User-Agent': 'adversarial-test',
      },
    });
    expect(result).toMatchObject({ ok: true, data: { status: 200, body: 'landed' } });
    expect(received?.['accept-language']).toBe('fr');
    expect(received?.['user-agent']).toBe('adversarial-test');
    expect(JSON.stringify(received)).not.toMatch(/FAKE_KEY/);
  });

  it('lets a content tool take content above the default size limit (write_file declares 10 MiB)', async () => {
    const result = await executor.execute('write_file', {
      path: 'big.txt',
      content: 'a'.repeat(2_000_000),
    });
    expect(result).toMatchObject({ ok: true });
  });
});
