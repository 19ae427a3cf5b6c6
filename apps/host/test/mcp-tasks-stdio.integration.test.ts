import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentText } from './support/mcp-client.js';

// MCP Tasks over stdio, `toolsys serve --stdio` on its default deployment: `search_files` may run
// as a task. The 2025-11-25 methods with the SDK's 2025 client; the 2026-07-28 extension as
// newline-delimited JSON-RPC written by hand (what any 2026 client sends).

const HOST_DIR = resolve(import.meta.dirname, '..');
const CLI_ARGS = ['--conditions=@toolsys/source', '--import', 'tsx', join(HOST_DIR, 'src/cli.ts')];
const SLOW = { timeout: 180_000 };

let scratch: string;

function environment(): Record<string, string> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    INIT_CWD: join(scratch, 'workspace'),
    TOOLSYS_DATA_DIR: join(scratch, 'data'),
  };
  delete env.TOOLSYS_TOKEN;
  delete env.TOOLSYS_CONFIG;
  return env;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-tasks-stdio-'));
  mkdirSync(join(scratch, 'workspace'));
  writeFileSync(join(scratch, 'workspace', 'notes.txt'), 'alpha\nneedle in a haystack\nomega\n');
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A 2026-07-28 stdio peer: sends requests with the envelope, reads answers by id. */
function modernStdio(child: ChildProcessByStdio<Writable, Readable, null>) {
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: { id?: number };
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  let nextId = 1;
  return (method: string, params: Record<string, unknown>) =>
    new Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>(
      (resolveAnswer, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => reject(new Error(`${method}: no answer`)), 60_000);
        waiting.set(id, (message) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolveAnswer(message);
        });
        child.stdin.write(
          `${JSON.stringify({
            jsonrpc: '2.0',
            id,
            method,
            params: {
              ...params,
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientInfo': { name: 'stdio-wire', version: '1.0.0' },
                'io.modelcontextprotocol/clientCapabilities': {
                  extensions: { 'io.modelcontextprotocol/tasks': {} },
                },
              },
            },
          })}\n`,
        );
      },
    );
}

describe('MCP Tasks over stdio', SLOW, () => {
  it('2025-11-25: a search runs as a task and its result is read with tasks/result', async () => {
    const client = new Client({ name: 'tasks-stdio', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...CLI_ARGS, 'serve', '--stdio'],
        cwd: HOST_DIR,
        env: environment(),
        stderr: 'ignore',
      }),
    );
    try {
      const { task } = await client.request(
        {
          method: 'tools/call',
          params: { name: 'search_files', arguments: { pattern: 'needle' }, task: {} },
        },
        CreateTaskResultSchema,
      );
      const got = await client.request(
        { method: 'tasks/get', params: { taskId: task.taskId } },
        GetTaskResultSchema,
      );
      expect(got.taskId).toBe(task.taskId);
      const result = await client.request(
        { method: 'tasks/result', params: { taskId: task.taskId } },
        CallToolResultSchema,
      );
      expect(contentText(result)).toMatch(/notes\.txt:2/);
    } finally {
      await client.close();
    }
  });

  it('2026-07-28: the server makes the search a task; tasks/get inlines its result', async () => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--stdio'], {
      cwd: HOST_DIR,
      env: environment(),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const request = modernStdio(child);
    try {
      const created = await request('tools/call', {
        name: 'search_files',
        arguments: { pattern: 'needle' },
      });
      expect(created.result).toMatchObject({ resultType: 'task' });
      const taskId = String(created.result?.taskId);
      let detailed: Record<string, unknown> | undefined;
      for (let i = 0; i < 100; i += 1) {
        detailed = (await request('tasks/get', { taskId })).result;
        if (detailed?.status !== 'working') break;
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
      expect(detailed?.status).toBe('completed');
      expect(contentText(detailed?.result)).toMatch(/notes\.txt:2/);
      const other = await request('tasks/result', { taskId });
      expect(other.error?.code).toBe(-32601);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
