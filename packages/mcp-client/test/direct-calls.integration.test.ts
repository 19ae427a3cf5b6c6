import type { ToolError } from '@toolsys/core-tool-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpClient, type McpServerConfig, toToolResult } from '../src/index.js';
import { marked } from './marked.js';
import { connectedClient, everythingStdio, outcome, SCRIPTED, waitFor } from './support.js';

describe('direct tools/call: the same outcome as the SDK client', () => {
  const clients: McpClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  const pair = async (config: McpServerConfig) => {
    const direct = await connectedClient(config, true);
    const sdk = await connectedClient(config, false);
    clients.push(direct, sdk);
    return { direct, sdk };
  };

  it('for answers, error answers and malformed results of a hand-written server', async () => {
    const { direct, sdk } = await pair(SCRIPTED);
    const calls: Array<[string, Record<string, unknown>?]> = [
      ['echo', { text: 'hello' }],
      ['no-content'],
      ['annotated'],
      ['malformed'],
      ['error'],
      ['unknown-tool'],
      ['bad-output'],
      ['task-required'],
    ];
    for (const [tool, args] of calls) {
      expect(await outcome(direct, tool, args), tool).toEqual(await outcome(sdk, tool, args));
    }
    // Spot checks that the comparison is not between two identical failures.
    expect(await outcome(direct, 'echo', { text: 'hello' })).toEqual({
      result: { ok: true, content: marked('hello') },
    });
    expect(await outcome(direct, 'no-content')).toEqual({
      result: { ok: true, content: '(no output)' },
    });
    const malformed = await outcome(direct, 'malformed');
    expect('error' in malformed && malformed.error.code).toBe('EXECUTION_FAILED');
    expect(await outcome(direct, 'error')).toEqual({
      error: {
        code: 'INVALID_ARGUMENT',
        message:
          'MCP server "scripted" rejected the arguments of tools/call "error": text must be shorter',
      },
    });
    // A tool with an outputSchema stays with the SDK client, which checks its structured output.
    const badOutput = await outcome(direct, 'bad-output');
    expect('error' in badOutput && badOutput.error.message).toMatch(/output schema/);
    const taskRequired = await outcome(direct, 'task-required');
    expect('error' in taskRequired && taskRequired.error.message).toMatch(/task-based execution/);
  });

  it('for the tools of server-everything, text, images and structured content alike', async () => {
    const { direct, sdk } = await pair(everythingStdio());
    const calls: Array<[string, Record<string, unknown>?]> = [
      ['echo', { message: 'hi' }],
      ['get-sum', { a: 2, b: 3 }],
      ['get-tiny-image'],
      ['get-structured-content', { location: 'Chicago' }],
      ['get-resource-links', { count: 2 }],
      ['echo', {}],
    ];
    for (const [tool, args] of calls) {
      const mine = await outcome(direct, tool, args);
      const theirs = await outcome(sdk, tool, args);
      // get-structured-content reports random weather: compare its shape, not its numbers.
      if (tool === 'get-structured-content') {
        expect(Object.keys(mine)).toEqual(Object.keys(theirs));
        expect('result' in mine && mine.result.ok).toBe(true);
      } else {
        expect(mine, tool).toEqual(theirs);
      }
    }
  });
});

describe('direct tools/call on a hand-written server', () => {
  let client: McpClient;
  beforeAll(async () => {
    client = await connectedClient(SCRIPTED, true);
  });
  afterAll(async () => {
    await client.close();
  });

  it('passes a server request whose id looks like its own on to the SDK client', async () => {
    // The server pings the client with id "toolsys-1" and answers the call once pinged back.
    expect(await outcome(client, 'ping-first')).toEqual({
      result: { ok: true, content: marked('pong received') },
    });
  });

  it('forwards progress of its own calls, drops that of unknown ones, and sends no token unasked', async () => {
    const progress: unknown[] = [];
    const result = await client.callToolWith('progress', {}, toToolResult, {
      onProgress: (update) => progress.push(update),
    });
    expect(result).toEqual({ ok: true, content: marked('progressed') });
    expect(progress).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2, message: 'done' },
    ]);
    expect(await outcome(client, 'progress')).toEqual({
      result: { ok: true, content: marked('no token') },
    });
  });

  it('cancels on timeout, drops the late answer, and the connection keeps working', async () => {
    const late = await client.callToolWith('late', {}, toToolResult, { timeoutMs: 200 }).then(
      () => undefined,
      (error: ToolError) => error,
    );
    expect(late?.code).toBe('TIMEOUT');
    const cancelled = () =>
      client.stderr.lines().find((line) => line.startsWith('cancelled toolsys-'));
    await waitFor(() => cancelled() !== undefined);
    const requestId = cancelled()?.slice('cancelled '.length);
    expect(client.stderr.lines()).toContain(`recv tools/call ${requestId}`);
    expect(await outcome(client, 'echo', { text: 'still here' })).toEqual({
      result: { ok: true, content: marked('still here') },
    });
  });

  it('matches each of many concurrent answers to its own call', async () => {
    const texts = Array.from({ length: 64 }, (_, index) => `call ${index}`);
    const results = await Promise.all(
      texts.map((text) => client.callToolWith('echo', { text }, toToolResult)),
    );
    expect(results).toEqual(texts.map((text) => ({ ok: true, content: marked(text) })));
  });

  it('times out concurrent calls each at its own limit, on one timer', async () => {
    const started = performance.now();
    const settle = (timeoutMs: number) =>
      client.callToolWith('late', {}, toToolResult, { timeoutMs }).then(
        () => ({ timeoutMs, code: 'none', after: 0 }),
        (error: ToolError) => ({ timeoutMs, code: error.code, after: performance.now() - started }),
      );
    const outcomes = await Promise.all([settle(600), settle(150), settle(350)]);
    expect(outcomes.map((entry) => entry.code)).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT']);
    // Each fails no earlier than its own limit, and the shorter ones do not wait for the longest.
    for (const entry of outcomes) expect(entry.after).toBeGreaterThanOrEqual(entry.timeoutMs - 1);
    const [longest, shortest] = outcomes;
    expect(shortest.after).toBeLessThan(longest.after);
  });

  it('an aborted signal sends nothing and fails at once', async () => {
    const before = client.stderr.lines().length;
    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    await expect(
      client.callToolWith('echo', { text: 'x' }, toToolResult, { signal: controller.signal }),
    ).rejects.toThrow('caller gave up');
    expect(await outcome(client, 'echo', { text: 'after' })).toEqual({
      result: { ok: true, content: marked('after') },
    });
    // stderr may trail the answer on stdout: wait for the second call's line. The aborted call,
    // had it been sent, would have been logged before it.
    const calls = () =>
      client.stderr
        .lines()
        .slice(before)
        .filter((line) => line.startsWith('recv tools/call'));
    await waitFor(() => calls().length > 0);
    expect(calls()).toHaveLength(1);
  });

  it('a server that exits fails every pending call with EXECUTION_FAILED', async () => {
    const doomed = await connectedClient(SCRIPTED, true);
    const pending = [1, 2, 3].map(() =>
      doomed.callToolWith('late', {}, toToolResult).then(
        () => undefined,
        (error: ToolError) => error.message,
      ),
    );
    await waitFor(
      () => doomed.stderr.lines().filter((line) => line.startsWith('recv tools/call')).length === 3,
    );
    process.kill(doomed.pid as number, 'SIGKILL');
    expect(await Promise.all(pending)).toEqual(
      Array(3).fill('MCP server "scripted" closed the connection during tools/call "late".'),
    );
    await doomed.close();
  });
});
