import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const HOST = resolve(import.meta.dirname, '../../../apps/host');
const CLI = join(HOST, 'src/cli.ts');
/** The largest content `write_file` accepts, in characters. */
const MAX_WRITE_CHARACTERS = 10 * 1024 * 1024;
/** The transport limit of the server: 64 MiB a message. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

let scratch: string;
const children: ChildProcessWithoutNullStreams[] = [];

interface Answer {
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * A bare JSON-RPC line client over the real `toolsys serve --stdio` process: the SDK client
 * refuses to send what an attacker sends (oversized lines, garbage, array arguments).
 */
class StdioPeer {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<string, (answer: Answer) => void>();
  readonly #unmatched: Answer[] = [];
  #buffer = '';
  stderr = '';

  constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      this.#buffer += text;
      for (let at = this.#buffer.indexOf('\n'); at !== -1; at = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 1);
        const answer = JSON.parse(line) as Answer & { method?: string };
        // A notification (a log line, a changed tool list) answers no request.
        if (answer.method !== undefined) continue;
        const key = JSON.stringify(answer.id ?? null);
        const waiter = this.#waiting.get(key);
        if (waiter) {
          this.#waiting.delete(key);
          waiter(answer);
        } else this.#unmatched.push(answer);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
  }

  /** Writes raw text (a line or part of one), honouring back-pressure. */
  async write(text: string): Promise<void> {
    if (!this.#child.stdin.write(text)) {
      await new Promise((done) => this.#child.stdin.once('drain', done));
    }
  }

  /** The answer with this id (null for errors that could not name a request). */
  answer(id: string | number | null): Promise<Answer> {
    const key = JSON.stringify(id);
    const index = this.#unmatched.findIndex((answer) => JSON.stringify(answer.id ?? null) === key);
    if (index !== -1) return Promise.resolve(this.#unmatched.splice(index, 1)[0] as Answer);
    return new Promise((done) => this.#waiting.set(key, done));
  }

  async request(id: number, method: string, params: unknown = {}): Promise<Answer> {
    const answer = this.answer(id);
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answer;
  }
}

async function startServer(): Promise<StdioPeer> {
  const child = spawn(
    process.execPath,
    ['--conditions=@toolsys/source', '--import', 'tsx', CLI, 'serve', '--stdio'],
    {
      cwd: HOST,
      env: { ...process.env, INIT_CWD: scratch, TOOLSYS_DATA_DIR: join(scratch, 'data') },
    },
  );
  children.push(child);
  const peer = new StdioPeer(child);
  const init = await peer.request(0, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'adversary', version: '1.0.0' },
  });
  expect(init.result?.serverInfo).toMatchObject({ name: 'toolsys' });
  await peer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return peer;
}

function firstText(answer: Answer): string {
  const content = (answer.result?.content ?? []) as Array<{ text?: string }>;
  return content[0]?.text ?? '';
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-stdio-'));
  writeFileSync(
    join(scratch, 'toolsys.config.json'),
    JSON.stringify({ permissions: { alwaysAllow: ['write_file'] } }),
  );
});

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('stdio: oversized and malformed messages (issue item 6)', { timeout: 180_000 }, () => {
  it('answers a message over 64 MiB with an error naming the limit and its id, then keeps serving', async () => {
    const peer = await startServer();
    const content = 'x'.repeat(MAX_MESSAGE_BYTES);
    const answer = peer.answer(42);
    // The SDK client puts the id last; the server must still answer that request.
    await peer.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        method: 'tools/call',
        params: { name: 'write_file', arguments: { path: 'big.txt', content } },
        id: 42,
      })}\n`,
    );
    const refused = await answer;
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toContain('Message too large');
    expect(refused.error?.message).toContain(`limit of ${MAX_MESSAGE_BYTES} bytes (64 MiB)`);
    expect(await peer.request(43, 'ping')).toMatchObject({ id: 43, result: {} });
    const calc = await peer.request(44, 'tools/call', {
      name: 'calculate',
      arguments: { expression: '6*7' },
    });
    expect(firstText(calc)).toBe('42');
  });

  it('runs the largest write_file the tool accepts, even with every character JSON-escaped', async () => {
    const peer = await startServer();
    // \u0001 takes 6 bytes in JSON: the worst case for the size of a valid request (60 MiB).
    const content = '\u0001'.repeat(MAX_WRITE_CHARACTERS);
    const answer = await peer.request(1, 'tools/call', {
      name: 'write_file',
      arguments: { path: 'largest.txt', content },
    });
    expect(answer.error).toBeUndefined();
    expect(answer.result?.isError).toBeFalsy();
    expect(readFileSync(join(scratch, 'largest.txt')).length).toBe(MAX_WRITE_CHARACTERS);
    expect(await peer.request(2, 'ping')).toMatchObject({ id: 2, result: {} });
  });

  it('answers a line that is not JSON with a parse error and goes on reading', async () => {
    const peer = await startServer();
    const parseError = peer.answer(null);
    await peer.write('{"jsonrpc":"2.0","id":5,"method":\n');
    expect((await parseError).error?.code).toBe(-32700);
    expect(await peer.request(6, 'ping')).toMatchObject({ id: 6, result: {} });
  });

  it('answers an oversized line that never shows its id with a null id', async () => {
    const peer = await startServer();
    const refused = peer.answer(null);
    await peer.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"pad":"`);
    const block = 'y'.repeat(1024 * 1024);
    for (let written = 0; written <= MAX_MESSAGE_BYTES; written += block.length) {
      await peer.write(block);
    }
    await peer.write('"}}\n');
    expect((await refused).error?.code).toBe(-32600);
    expect(await peer.request(7, 'ping')).toMatchObject({ id: 7, result: {} });
  });
});

describe('stdio: arguments that are not an object (issue item 10)', { timeout: 120_000 }, () => {
  it('answers array, number and string arguments with an INVALID_ARGUMENT tool result', async () => {
    const peer = await startServer();
    for (const [id, args, kind] of [
      [10, [1, 2], 'array'],
      [11, 5, 'number'],
      [12, true, 'boolean'],
    ] as const) {
      const answer = await peer.request(id, 'tools/call', { name: 'calculate', arguments: args });
      expect(answer.error).toBeUndefined();
      expect(answer.result?.isError).toBe(true);
      expect(firstText(answer)).toContain(
        `Error: [INVALID_ARGUMENT] arguments must be a JSON object, received ${kind}`,
      );
      expect(firstText(answer)).not.toContain('"code":');
    }
    expect(await peer.request(13, 'ping')).toMatchObject({ id: 13, result: {} });
  });
});
