import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderResult } from '@toolsys/core-tool-registry';
import { afterEach, describe, expect, it } from 'vitest';
import { McpManager } from '../src/index.js';
import { marked } from './marked.js';
import {
  createHarness,
  everythingStdio,
  FIXTURES,
  type Harness,
  hangingStdio,
  waitFor,
} from './support.js';

describe('faults', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const track = (harness: Harness): Harness => {
    cleanups.push(() => harness.close());
    return harness;
  };

  it('a server killed mid-call gives EXECUTION_FAILED, not a hang, and the next call reconnects', async () => {
    const harness = track(createHarness({ servers: [everythingStdio()] }));
    await harness.manager.connect('everything');
    const firstPid = harness.manager.client('everything')?.pid;
    expect(firstPid).toBeGreaterThan(0);
    const pending = harness.executor.execute('mcp_call', {
      server: 'everything',
      tool: 'trigger-long-running-operation',
      arguments: { duration: 30, steps: 30 },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(firstPid as number, 'SIGKILL');
    const result = await pending;
    expect(renderResult(result)).toBe(
      'Error: [EXECUTION_FAILED] MCP server "everything" closed the connection during tools/call "trigger-long-running-operation".\nNext: The server stopped or crashed; the next call reconnects. Check the outcome before repeating a call that changes state.',
    );
    expect(harness.manager.state('everything').status).toBe('disconnected');
    const next = await harness.executor.execute('mcp_call', {
      server: 'everything',
      tool: 'echo',
      arguments: { message: 'again' },
    });
    expect(next).toEqual({ ok: true, content: marked('Echo: again') });
    expect(harness.manager.client('everything')?.pid).not.toBe(firstPid);
  });

  it('a server that never answers hits the timeout and is sent a cancellation', async () => {
    const harness = track(
      createHarness({
        servers: [hangingStdio('hang')],
      }),
    );
    const result = await harness.executor.execute('mcp_call', {
      server: 'hang',
      tool: 'hang',
      timeoutMs: 300,
    });
    expect(renderResult(result)).toBe(
      'Error: [TIMEOUT] MCP server "hang" did not answer tools/call "hang" within 300 ms; the request was cancelled.\nNext: The outcome on the server is unknown. Check its state before repeating the call, or retry with a larger timeoutMs.',
    );
    expect(result.ok === false && result.error.retryable).toBe(false);
    const stderr = harness.manager.client('hang')?.stderr;
    // The server itself logs the notifications/cancelled it received, naming that very request.
    await waitFor(() => stderr?.lines().some((line) => line.startsWith('started ')) ?? false);
    const started = stderr?.lines().find((line) => line.startsWith('started '));
    const requestId = started?.slice('started '.length);
    expect(requestId).toBeTruthy();
    await waitFor(() => stderr?.lines().includes(`cancelled ${requestId} hang`) ?? false);
  });

  it('a caller abort cancels the remote request too', async () => {
    const harness = track(
      createHarness({
        servers: [hangingStdio('hang')],
      }),
    );
    await harness.manager.connect('hang');
    const controller = new AbortController();
    const pending = harness.executor.execute(
      'mcp_call',
      { server: 'hang', tool: 'hang' },
      { signal: controller.signal },
    );
    const stderr = harness.manager.client('hang')?.stderr;
    await waitFor(() => stderr?.lines().some((line) => line.startsWith('started')) ?? false);
    controller.abort();
    const result = await pending;
    expect(result.ok === false && result.error.details).toEqual({ cancelled: true });
    await waitFor(() => stderr?.lines().some((line) => line.startsWith('cancelled')) ?? false);
  });

  it('a server writing garbage to stdout is reported clearly', async () => {
    const harness = track(
      createHarness({
        servers: [
          {
            name: 'noisy',
            transport: 'stdio',
            command: process.execPath,
            args: [FIXTURES.garbage],
          },
        ],
      }),
    );
    const result = await harness.executor.execute('mcp_connect', { server: 'noisy' });
    expect(result.ok).toBe(false);
    expect(renderResult(result)).toMatch(
      /^Error: \[EXECUTION_FAILED\] MCP server "noisy" wrote output that is not MCP JSON-RPC to stdout: "Unexpected token 'S', \\"Server sta\\"\.\.\. is not valid JSON"\.\nNext: The server is misconfigured \(stdout must carry only JSON-RPC; logs belong on stderr\)\./,
    );
    expect(harness.manager.state('noisy').status).toBe('failed');
  });

  it('a catalog refresh that times out keeps the last good tools', async () => {
    const harness = track(
      createHarness({
        servers: [hangingStdio('slow', { HANG_LIST_AFTER: '1' })],
      }),
    );
    await harness.manager.connect('slow');
    expect(harness.manager.tools('slow').map((tool) => tool.name)).toEqual(['hang', 'grow']);
    const refresh = await harness.manager.refreshTools('slow', { timeoutMs: 200 });
    expect(refresh.error).toBe(
      'MCP server "slow" did not answer tools/list within 200 ms; the request was cancelled.',
    );
    expect(refresh.tools.map((tool) => tool.name)).toEqual(['hang', 'grow']);
    const listed = await harness.executor.execute('mcp_list', { server: 'slow' });
    expect(listed.ok && listed.content).toContain(
      '  tool list may be out of date (the last refresh failed)\n<untrusted-mcp-server-content>\nserver: hanging-fixture 1.0.0\nlast error: MCP server "slow" did not answer tools/list within 200 ms; the request was cancelled.\nhang [read-only] — Never answers.\ngrow — Adds a tool.\n</untrusted-mcp-server-content>',
    );
  });

  it('backs off after failed connections, on an injected clock', async () => {
    let now = 1_000;
    const manager = new McpManager({
      servers: [
        {
          name: 'dead',
          transport: 'stdio',
          command: process.execPath,
          args: ['-e', 'process.exit(3)'],
        },
      ],
      now: () => now,
      random: () => 0.5,
      backoff: { baseMs: 1_000, maxMs: 10_000 },
    });
    cleanups.push(() => manager.close());
    await expect(manager.connect('dead')).rejects.toMatchObject({ code: 'EXECUTION_FAILED' });
    expect(manager.state('dead')).toMatchObject({
      status: 'failed',
      consecutiveFailures: 1,
      retryAfterMs: 500,
    });
    now += 499;
    await expect(manager.connect('dead')).rejects.toMatchObject({
      code: 'EXECUTION_FAILED',
      options: { retryAfterMs: 1, details: { server: 'dead', reason: 'backoff' } },
    });
    expect(manager.state('dead').consecutiveFailures).toBe(1);
    now += 1;
    await expect(manager.connect('dead')).rejects.toMatchObject({ code: 'EXECUTION_FAILED' });
    expect(manager.state('dead')).toMatchObject({ consecutiveFailures: 2, retryAfterMs: 1_000 });
  });

  it('a command that is not executable says so, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-not-executable-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const command = join(dir, 'server.sh');
    writeFileSync(command, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const harness = track(
      createHarness({ servers: [{ name: 'plain-file', transport: 'stdio', command }] }),
    );
    const result = await harness.executor.execute('mcp_connect', { server: 'plain-file' });
    expect(renderResult(result)).toContain(
      `MCP server "plain-file" could not be started: its command ${JSON.stringify(command)} is not executable.`,
    );
  });

  it('a command that does not exist fails the connection with a readable message', async () => {
    const harness = track(
      createHarness({
        servers: [{ name: 'missing', transport: 'stdio', command: 'toolsys-no-such-binary' }],
      }),
    );
    const result = await harness.executor.execute('mcp_connect', { server: 'missing' });
    expect(renderResult(result)).toBe(
      'Error: [EXECUTION_FAILED] MCP server "missing" could not be started: its command "toolsys-no-such-binary" was not found (not on PATH, or its working directory is missing).\nNext: Install the program, or fix the server\'s command in the configuration; toolsys doctor shows the servers and their state.',
    );
  });
});
