import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedStdioServerTransport } from './stdio-transport.js';

const LIMIT = 1024;
const open: BoundedStdioServerTransport[] = [];

async function start(): Promise<{
  stdin: PassThrough;
  received: JSONRPCMessage[];
  answers: () => unknown[];
}> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = '';
  stdout.on('data', (chunk: Buffer) => {
    written += chunk.toString('utf8');
  });
  const transport = new BoundedStdioServerTransport(stdin, stdout, { maxMessageBytes: LIMIT });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  open.push(transport);
  return {
    stdin,
    received,
    answers: () =>
      written
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown),
  };
}

/** Lets the PassThrough deliver what was written. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const ping = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

afterEach(async () => {
  for (const transport of open.splice(0)) await transport.close();
});

describe('BoundedStdioServerTransport', () => {
  it('delivers messages split across chunks and several in one chunk', async () => {
    const { stdin, received } = await start();
    const line = ping(1);
    stdin.write(line.slice(0, 10));
    stdin.write(`${line.slice(10)}${ping(2)}${ping(3)}`);
    await settle();
    expect(received.map((message) => (message as { id: number }).id)).toEqual([1, 2, 3]);
  });

  it('answers a message over the limit with an error carrying its trailing id, then reads on', async () => {
    const { stdin, received, answers } = await start();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path: 'a', content: 'x'.repeat(5000) } },
      id: 7,
    });
    for (let at = 0; at < big.length; at += 300) stdin.write(big.slice(at, at + 300));
    stdin.write(`\n${ping(8)}`);
    await settle();
    expect(answers()).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32600,
          message: expect.stringContaining(
            `Message too large: ${Buffer.byteLength(big)} bytes, over the limit of 1024 bytes`,
          ),
        },
      },
    ]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
  });

  it('recovers a leading id and answers with a null id when none can be seen', async () => {
    const { stdin, answers } = await start();
    stdin.write(
      `{"jsonrpc":"2.0","id":"req-1","method":"x","params":{"a":"${'y'.repeat(2000)}"}}\n`,
    );
    stdin.write(`{"jsonrpc":"2.0","method":"x","params":{"a":"${'y'.repeat(2000)}"}}\n`);
    await settle();
    expect(answers()).toMatchObject([
      { id: 'req-1', error: { code: -32600 } },
      { id: null, error: { code: -32600 } },
    ]);
  });

  it('does not take an id nested in the arguments for the request id', async () => {
    const { stdin, answers } = await start();
    stdin.write(`{"jsonrpc":"2.0","method":"x","params":{"a":"${'y'.repeat(2000)}","id":5}}\n`);
    await settle();
    expect(answers()).toMatchObject([{ id: null, error: { code: -32600 } }]);
  });

  it('answers a line that is not JSON with a parse error and one that is not JSON-RPC with Invalid Request', async () => {
    const { stdin, received, answers } = await start();
    stdin.write('not json\n{"id":4,"hello":1}\n\n');
    stdin.write(ping(5));
    await settle();
    expect(answers()).toMatchObject([
      { id: null, error: { code: -32700, message: expect.stringContaining('not valid JSON') } },
      { id: 4, error: { code: -32600 } },
    ]);
    expect(received).toHaveLength(1);
  });

  it('accepts a message of exactly the limit', async () => {
    const { stdin, received } = await start();
    const prefix = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"';
    const suffix = '"}}}';
    const line = `${prefix}${'p'.repeat(LIMIT - prefix.length - suffix.length)}${suffix}`;
    expect(Buffer.byteLength(line)).toBe(LIMIT);
    stdin.write(`${line}\n`);
    await settle();
    expect(received).toHaveLength(1);
  });

  describe('back-pressure', () => {
    /** A stdout whose reader is stalled until `release()`; what it reads is kept in order. */
    function stalledStdout(): { stdout: Writable; lines: () => string[]; release: () => void } {
      const written: string[] = [];
      let stalled: Array<() => void> = [];
      let open = false;
      const stdout = new Writable({
        highWaterMark: 256,
        write(chunk: Buffer, _encoding, callback) {
          written.push(chunk.toString('utf8'));
          if (open) callback();
          else stalled.push(callback);
        },
      });
      return {
        stdout,
        lines: () =>
          written
            .join('')
            .split('\n')
            .filter((line) => line !== ''),
        release: () => {
          open = true;
          for (const callback of stalled.splice(0)) callback();
          stalled = [];
        },
      };
    }

    const progress = (index: number): JSONRPCMessage => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: index },
    });

    it('keeps one drain listener and a bounded queue whatever is sent, dropping notifications past it', async () => {
      const { stdout, lines, release } = stalledStdout();
      const transport = new BoundedStdioServerTransport(new PassThrough(), stdout, {
        maxQueuedBytes: 4096,
      });
      await transport.start();
      open.push(transport);
      const sent: Promise<void>[] = [];
      for (let index = 0; index < 10_000; index++) sent.push(transport.send(progress(index)));
      const answer = transport.send({ jsonrpc: '2.0', id: 9, result: {} });
      expect(stdout.listenerCount('drain')).toBe(1);
      expect(transport.queuedBytes).toBeLessThanOrEqual(4096 + 100);
      expect(transport.droppedNotifications).toBeGreaterThan(9_000);
      // Dropped notifications settle at once: nobody waits on a message that will never go.
      await Promise.race([
        Promise.all(sent.slice(-100)),
        new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting')), 100)),
      ]);
      release();
      await answer;
      await Promise.all(sent);
      const read = lines().map((line) => JSON.parse(line) as { id?: number; params?: unknown });
      // In order, and the answer after everything queued before it.
      expect(read.at(-1)).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
      expect(read.length).toBeLessThan(200);
    });

    it('keeps every answer even past the bound, and releases waiting senders on close', async () => {
      const { stdout } = stalledStdout();
      const transport = new BoundedStdioServerTransport(new PassThrough(), stdout, {
        maxQueuedBytes: 512,
      });
      await transport.start();
      const answers: Promise<void>[] = [];
      for (let id = 0; id < 100; id++) {
        answers.push(transport.send({ jsonrpc: '2.0', id, result: { pad: 'x'.repeat(100) } }));
      }
      expect(transport.queuedBytes).toBeGreaterThan(512);
      expect(stdout.listenerCount('drain')).toBe(1);
      await transport.close();
      await Promise.all(answers);
      expect(stdout.listenerCount('drain')).toBe(0);
    });
  });
});
