import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_PACKAGES, type Deployment, type ToolHost } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticatedUser } from '../../../packages/app-github/test/fixtures/github-responses.js';
import { deployHost } from './support/host.js';

// A GitHub API (a hostile GitHub Enterprise Server, a broken proxy) that sends the headers and
// `[` of an answer, then nothing more. Before, the call waited the whole time limit three times
// (272 s) while its message said 90 s, and the stalls opened the breaker of github_list_issues for
// every repository. The real host composes app-github against a local server: a stall ends after
// the idle limit with a message stating the real time, is not retried, and one stalled
// repository leaves the others working.

const TOKEN = 'ghp_adversarialtokenadversarialtoken00';
/** The idle limit configured for this deployment (the default is 20 s). */
const IDLE_MS = 1_500;

const GITHUB_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'x-ratelimit-limit': '5000',
  'x-ratelimit-remaining': '4999',
  'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
};

let scratch: string;
let server: ReturnType<typeof createServer>;
let deployment: Deployment;
let host: ToolHost;
/** Requests per repository path, and the answers held open. */
const requests = new Map<string, number>();
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (path.endsWith('/user')) {
      const body = JSON.stringify(authenticatedUser);
      response.writeHead(200, { ...GITHUB_HEADERS, 'content-length': Buffer.byteLength(body) });
      response.end(body);
      return;
    }
    if (path.includes('/repos/octo/stalled/')) {
      // Headers and the first byte of a list, then silence (the connection stays open).
      response.writeHead(200, GITHUB_HEADERS);
      response.write('[');
      held.push(response);
      return;
    }
    if (path.includes('/repos/octo/silent/')) {
      // Not even headers.
      held.push(response);
      return;
    }
    response.writeHead(200, { ...GITHUB_HEADERS, 'content-length': 2 });
    response.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adversarial-github-stall-'));
  ({ deployment, host } = await deployHost(scratch, {
    config: { packages: { 'app-github': { baseUrl, readOnly: true, idleTimeoutMs: IDLE_MS } } },
    packages: BUILTIN_PACKAGES.filter((entry) => ['core', 'app-github'].includes(entry.key)),
    env: { PATH: process.env.PATH ?? '', GITHUB_TOKEN: TOKEN },
  }));
  const warm = await call('github_get_user', {});
  expect(warm.ok).toBe(true);
}, 60_000);

afterAll(async () => {
  for (const response of held) response.destroy();
  await deployment?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function call(toolId: string, args: unknown, sessionId = 'attacker') {
  return host.call(toolId, args, { sessionId, source: 'mcp' });
}

async function timed(toolId: string, args: unknown) {
  const started = performance.now();
  const result = await call(toolId, args);
  return { result, elapsedMs: performance.now() - started };
}

describe('a GitHub API that stops sending', () => {
  it('headers and "[" then silence: the call ends after the idle limit, once, stating the time', async () => {
    const before = requests.get('/api/v3/repos/octo/stalled/issues') ?? 0;
    const { result, elapsedMs } = await timed('github_list_issues', {
      owner: 'octo',
      repo: 'stalled',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('TIMEOUT');
    expect(result.error.message).toMatch(
      /^GitHub sent nothing for 1\.5 s while answering GET \/api\/v3\/repos\/octo\/stalled\/issues, so the request was stopped after (\d+(\.\d)?) s; /,
    );
    // The time stated is the time spent, which is the idle limit, not a multiple of it.
    const stated = Number(/stopped after (\d+(?:\.\d)?) s/.exec(result.error.message)?.[1]) * 1000;
    expect(stated).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(Math.abs(stated - elapsedMs)).toBeLessThan(1_500);
    // Not retried: one request, one wait.
    expect((requests.get('/api/v3/repos/octo/stalled/issues') ?? 0) - before).toBe(1);
    expect(elapsedMs).toBeLessThan(IDLE_MS + 5_000);
  }, 60_000);

  it('no headers at all: the same', async () => {
    const { result, elapsedMs } = await timed('github_list_issues', {
      owner: 'octo',
      repo: 'silent',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('TIMEOUT');
    expect(result.error.message).toMatch(/^GitHub sent nothing for 1\.5 s while answering GET /);
    expect(elapsedMs).toBeLessThan(IDLE_MS + 5_000);
  }, 60_000);

  it('one stalled repository does not open the breaker for the others', async () => {
    // More stalls than the breaker's threshold (5 consecutive failures).
    for (let index = 0; index < 6; index += 1) {
      const result = await call('github_list_issues', { owner: 'octo', repo: 'stalled' });
      expect(!result.ok && result.error.code).toBe('TIMEOUT');
    }
    const healthy = await call('github_list_issues', { owner: 'octo', repo: 'healthy' });
    expect(healthy.ok, JSON.stringify(healthy)).toBe(true);
    // The stalled one is still asked (and still stalls), not refused as CIRCUIT_OPEN.
    const again = await call('github_list_issues', { owner: 'octo', repo: 'stalled' });
    expect(!again.ok && again.error.code).toBe('TIMEOUT');
  }, 120_000);
});
