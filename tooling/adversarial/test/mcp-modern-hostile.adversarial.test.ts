// A hostile server of the 2026-07-28 (stateless) MCP era cannot hang or crash the client: a
// discover result of the wrong shape, input_required without end, a requestState that grows
// every round, thousands of embedded requests, and HTTP answers with the wrong headers all end
// in bounded time with a closed error code.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@toolsys/core-tool-registry';
import { INPUT_REQUIRED_MAX_ROUNDS, McpClient, type McpServerConfig } from '@toolsys/mcp-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeHostileModernServer } from './support/mcp-hostile-modern-server.js';

let scratch: string;
let script: string;
const clients: McpClient[] = [];
const servers: ChildProcess[] = [];

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-mcp-modern-'));
  script = writeHostileModernServer(scratch);
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
    }
  }
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function stdio(mode: string): McpServerConfig {
  return {
    name: 'hostile',
    transport: 'stdio',
    command: process.execPath,
    args: [script, 'stdio'],
    env: { HOSTILE_MODE: mode },
  };
}

/** The hostile server over HTTP on 127.0.0.1; its stderr lines are collected in `log`. */
async function http(mode: string): Promise<{ config: McpServerConfig; log: string[] }> {
  const child = spawn(process.execPath, [script, 'http'], {
    env: { PATH: process.env.PATH ?? '', HOSTILE_MODE: mode },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  servers.push(child);
  const log: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the hostile server did not start')), 10_000);
    let buffered = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        log.push(line);
        const match = /^TOOLSYS_LISTENING (\d+)$/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      }
    });
  });
  return {
    config: { name: 'hostile', transport: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` },
    log,
  };
}

async function connected(config: McpServerConfig): Promise<McpClient> {
  const client = new McpClient(config);
  clients.push(client);
  await client.connect({ timeoutMs: 10_000 });
  await client.listTools({ timeoutMs: 5_000 });
  return client;
}

/** Waits until `check` holds; fails after 5 s. */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What `promise` failed with, and how long it took; fails the test if it resolved. */
async function failure(promise: Promise<unknown>): Promise<{ error: ToolError; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return { error: error as ToolError, ms: performance.now() - started };
}

describe('a hostile 2026-07-28 server over stdio', () => {
  it('a discover result of the wrong shape is not taken for the new era; the refused handshake fails clearly', async () => {
    const client = new McpClient(stdio('bad-discover'));
    clients.push(client);
    const { error, ms } = await failure(client.connect({ timeoutMs: 10_000 }));
    expect(ms).toBeLessThan(8_000);
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toBe(
      'MCP server "hostile" does not support initialize: initialize is gone',
    );
    expect(client.isConnected).toBe(false);
    // The server's stderr may arrive after the failure.
    await until(() => client.stderr.text().includes('recv initialize'));
  });

  it('pinned to 2026-07-28, the same server fails as a negotiation failure', async () => {
    const client = new McpClient({ ...stdio('bad-discover'), protocolVersion: '2026-07-28' });
    clients.push(client);
    const { error } = await failure(client.connect({ timeoutMs: 10_000 }));
    expect(error.options.details).toMatchObject({ reason: 'protocol_negotiation' });
  });

  it('input_required without end stops after the round limit, each round echoing the state', async () => {
    const client = await connected(stdio('loop'));
    expect(client.era).toBe('modern');
    const { error, ms } = await failure(client.callTool('ask', {}, { timeoutMs: 20_000 }));
    expect(error.message).toBe(
      `MCP server "hostile" kept asking for more input during tools/call "ask"; the call was stopped after ${INPUT_REQUIRED_MAX_ROUNDS} rounds.`,
    );
    expect(error.options.details).toMatchObject({ reason: 'input_rounds_exceeded' });
    expect(error.options.retryable).toBe(false);
    // Rounds without input requests are paced by the SDK (250 ms each): bounded, not spinning.
    expect(ms).toBeLessThan(10_000);
    const received = () =>
      client.stderr.lines().filter((line) => line.startsWith('recv tools/call'));
    await until(() => received().length >= INPUT_REQUIRED_MAX_ROUNDS + 1);
    const calls = received();
    expect(calls).toHaveLength(INPUT_REQUIRED_MAX_ROUNDS + 1);
    // The first call carries no state; every retry echoes the previous round's state exactly.
    expect(calls[0]).toBe('recv tools/call null');
    calls.slice(1).forEach((line, round) => {
      expect(line).toBe(`recv tools/call "${round}:again"`);
    });
  });

  it('the whole multi-round call shares one time limit', async () => {
    const client = await connected(stdio('loop'));
    const { error, ms } = await failure(client.callTool('ask', {}, { timeoutMs: 600 }));
    expect(error.code).toBe('TIMEOUT');
    expect(ms).toBeLessThan(3_000);
  });

  it('a requestState that doubles every round ends the connection at the message bound, not in memory', async () => {
    const client = await connected(stdio('grow'));
    const { error, ms } = await failure(client.callTool('ask', {}, { timeoutMs: 30_000 }));
    expect(error.code).toBe('EXECUTION_FAILED');
    // The tail of the line that was too long is skipped, not taken for garbage on stdout.
    expect(error.options.details).toMatchObject({ reason: 'connection_closed' });
    expect(ms).toBeLessThan(25_000);
    // 256 KiB doubled: the 10 MiB line bound is hit before the round limit.
    const calls = client.stderr.lines().filter((line) => line.startsWith('recv tools/call'));
    expect(calls.length).toBeLessThan(INPUT_REQUIRED_MAX_ROUNDS + 1);
  });

  it('twenty thousand embedded requests are refused at once (no handler answers them)', async () => {
    const client = await connected(stdio('many-requests'));
    const { error, ms } = await failure(client.callTool('ask', {}, { timeoutMs: 10_000 }));
    expect(ms).toBeLessThan(5_000);
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.options.details).toMatchObject({ reason: 'input_not_supported' });
    const received = () =>
      client.stderr.lines().filter((line) => line.startsWith('recv tools/call'));
    await until(() => received().length >= 1);
    const calls = received();
    expect(calls).toHaveLength(1);
    // The connection survives a refused call.
    expect(client.isConnected).toBe(true);
  });
});

describe('a hostile 2026-07-28 server over Streamable HTTP', () => {
  it('is sent Mcp-Method and Mcp-Name on every request, and its endless rounds stop too', async () => {
    const { config, log } = await http('loop');
    const client = await connected(config);
    expect(client.era).toBe('modern');
    await failure(client.callTool('ask', {}, { timeoutMs: 20_000 }));
    expect(log).toContain('headers server/discover undefined');
    expect(log).toContain('headers tools/list undefined');
    const received = () => log.filter((line) => line.startsWith('headers tools/call'));
    await until(() => received().length >= INPUT_REQUIRED_MAX_ROUNDS + 1);
    const calls = received();
    expect(calls).toHaveLength(INPUT_REQUIRED_MAX_ROUNDS + 1);
    expect(new Set(calls)).toEqual(new Set(['headers tools/call ask']));
  });

  it('an answer with the wrong Content-Type fails the call clearly', async () => {
    const { config } = await http('wrong-content-type');
    const client = await connected(config);
    const { error, ms } = await failure(client.callTool('ask', {}, { timeoutMs: 10_000 }));
    expect(error.code).not.toBe('TIMEOUT');
    expect(ms).toBeLessThan(5_000);
    expect(error.message).toMatch(/^MCP server "hostile" /);
  });

  it('a header-mismatch refusal of every call fails the call once, without a retry loop', async () => {
    const { config, log } = await http('header-mismatch');
    const client = await connected(config);
    const { error, ms } = await failure(client.callTool('ask', {}, { timeoutMs: 10_000 }));
    expect(ms).toBeLessThan(5_000);
    expect(error.code).toBe('EXECUTION_FAILED');
    expect(error.options.details).toMatchObject({ reason: 'remote_error', mcpCode: -32020 });
    const received = () => log.filter((line) => line.startsWith('headers tools/call'));
    await until(() => received().length >= 1);
    expect(received()).toHaveLength(1);
  });

  it('an event stream that never answers ends at the time limit, and the stream is closed', async () => {
    const { config, log } = await http('endless-stream');
    const client = await connected(config);
    const { error, ms } = await failure(client.callTool('ask', {}, { timeoutMs: 500 }));
    expect(error.code).toBe('TIMEOUT');
    expect(ms).toBeLessThan(3_000);
    await until(() => log.includes('stream closed'));
  });
});
