import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHostileServer } from './support/mcp-hostile-server.js';
import { expectResponsiveDuring } from './support/responsiveness.js';

const HOST = resolve(import.meta.dirname, '../../../apps/host');
const CLI = join(HOST, 'src/cli.ts');
/** Progress notifications the hostile server sends during one call. */
const FLOOD = 100_000;
/** The call's own time limit. */
const CALL_TIMEOUT_MS = 3_000;

let scratch: string;
let child: ChildProcessWithoutNullStreams | undefined;

interface Answer {
  id?: number;
  method?: string;
  result?: { content?: Array<{ text?: string }>; isError?: boolean };
  error?: { code: number; message: string };
}

/** A JSON-RPC line client over `toolsys serve --stdio` that counts the notifications it reads. */
class Peer {
  readonly #waiting = new Map<number, (answer: Answer) => void>();
  readonly #child: ChildProcessWithoutNullStreams;
  #buffer = '';
  #next = 0;
  progress = 0;

  constructor(process: ChildProcessWithoutNullStreams) {
    this.#child = process;
    process.stdout.setEncoding('utf8');
    process.stdout.on('data', (text: string) => {
      this.#buffer += text;
      const lines = this.#buffer.split('\n');
      this.#buffer = lines.pop() ?? '';
      for (const line of lines) {
        const answer = JSON.parse(line) as Answer;
        if (answer.method === 'notifications/progress') this.progress += 1;
        if (typeof answer.id === 'number') this.#waiting.get(answer.id)?.(answer);
      }
    });
  }

  request(method: string, params: Record<string, unknown> = {}): Promise<Answer> {
    this.#next += 1;
    const id = this.#next;
    const answer = new Promise<Answer>((done) => this.#waiting.set(id, done));
    this.#child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answer;
  }

  notify(method: string): void {
    this.#child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }
}

/** Peak resident memory of a process, in MiB. */
function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-mcp-flood-'));
  const server = writeHostileServer(scratch);
  writeFileSync(
    join(scratch, 'toolsys.config.json'),
    JSON.stringify({
      permissions: { alwaysAllow: ['mcp_call'] },
      packages: {
        'mcp-client': {
          servers: {
            hostile: {
              command: process.execPath,
              args: [server],
              env: { HOSTILE_PROGRESS: String(FLOOD) },
            },
          },
        },
      },
    }),
  );
});

afterAll(() => {
  if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

describe('mcp: a remote server flooding progress (issue 23 item 5)', { timeout: 180_000 }, () => {
  it('ends the call at its time limit, forwards few notifications, and keeps serving others', async () => {
    child = spawn(
      process.execPath,
      ['--conditions=@toolsys/source', '--import', 'tsx', CLI, 'serve', '--stdio'],
      {
        cwd: HOST,
        env: { ...process.env, INIT_CWD: scratch, TOOLSYS_DATA_DIR: join(scratch, 'data') },
      },
    );
    const pid = child.pid as number;

    const peer = new Peer(child);
    const init = await peer.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'adversary', version: '1.0.0' },
    });
    expect(init.error).toBeUndefined();
    peer.notify('notifications/initialized');
    // Connect first, so the flood is all that is timed.
    await peer.request('tools/call', { name: 'mcp_connect', arguments: { server: 'hostile' } });
    const ping = async () => {
      const answer = await peer.request('tools/call', { name: 'get_time', arguments: {} });
      expect(answer.result?.isError).toBeFalsy();
    };
    const started = performance.now();
    const answer = await expectResponsiveDuring(
      () =>
        peer.request('tools/call', {
          name: 'mcp_call',
          arguments: { server: 'hostile', tool: 'flood', timeoutMs: CALL_TIMEOUT_MS },
          _meta: { progressToken: 'flood-1' },
        }),
      ping,
      // get_time admits 120 calls a minute (quickRead): a ping every 100 ms stays under it.
      { intervalMs: 100 },
    );
    const elapsed = performance.now() - started;
    expect(answer.result?.content?.[0]?.text).toContain('[TIMEOUT]');
    expect(elapsed).toBeLessThan(CALL_TIMEOUT_MS + 1_500);
    // A few per second, the latest each time: not one per remote notification.
    expect(peer.progress).toBeLessThanOrEqual(Math.ceil(CALL_TIMEOUT_MS / 1000) * 5 + 2);
    expect(peakMiB(pid)).toBeLessThan(300);
  });
});
