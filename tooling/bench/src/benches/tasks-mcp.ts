// The long job of `bench tasks` as a user's client meets it: `toolsys serve --http` running a
// real `sleep` through `shell_execute`, called by a client that gives up on a request after its
// timeout. In each protocol era the plain call fails at the timeout, and the same job started as
// a task completes: the client disconnects half-way and reads the result on a new connection.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { modernRequest } from '@toolsys/test-support';
import { removeOnExit } from '../cleanup.js';
import { startHostHttp } from '../processes.js';

/** One era's outcome: the plain call, and the task (with how often the client polled). */
export interface EraLongJob {
  readonly plain: { readonly ok: boolean; readonly ms: number; readonly error?: string };
  readonly task: { readonly ok: boolean; readonly ms: number; readonly polls: number };
}

/** Both eras' outcomes. */
export interface LongJobOverMcp {
  readonly legacy: EraLongJob;
  readonly modern: EraLongJob;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The job's command: a real process that runs `seconds`, then says so. */
function job(seconds: number, label: string) {
  return {
    name: 'shell_execute',
    arguments: {
      command: `sleep ${seconds}; echo ${label}-done`,
      timeoutMs: (seconds + 120) * 1000,
    },
  };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench-tasks', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** 2025-11-25: the SDK's client with a request timeout of `timeoutMs`. */
async function legacyEra(url: string, seconds: number, timeoutMs: number): Promise<EraLongJob> {
  const plainClient = await connect(url);
  const plainStarted = performance.now();
  const plain = plainClient
    .callTool(job(seconds, 'legacy-plain'), undefined, { timeout: timeoutMs })
    .then(
      (result) => ({ ok: result.isError !== true, ms: performance.now() - plainStarted }),
      (error: Error) => ({ ok: false, ms: performance.now() - plainStarted, error: error.message }),
    )
    .finally(() => plainClient.close());

  const started = performance.now();
  const first = await connect(url);
  const { task } = await first.request(
    { method: 'tools/call', params: { ...job(seconds, 'legacy-task'), task: { ttl: 3_600_000 } } },
    CreateTaskResultSchema,
    { timeout: timeoutMs },
  );
  // The client goes away half-way through the job and comes back on a new connection.
  await delay((seconds * 1000) / 2);
  await first.close();
  const second = await connect(url);
  let polls = 0;
  let status: string = task.status;
  while (status === 'working' || status === 'input_required') {
    await delay(task.pollInterval ?? 1000);
    status = (
      await second.request(
        { method: 'tasks/get', params: { taskId: task.taskId } },
        GetTaskResultSchema,
        { timeout: timeoutMs },
      )
    ).status;
    polls += 1;
  }
  const result = await second.request(
    { method: 'tasks/result', params: { taskId: task.taskId } },
    CallToolResultSchema,
    { timeout: timeoutMs },
  );
  await second.close();
  const text = JSON.stringify(result.content);
  return {
    plain: await plain,
    task: {
      ok: status === 'completed' && text.includes('legacy-task-done'),
      ms: performance.now() - started,
      polls,
    },
  };
}

/** 2026-07-28: every request on its own, each given up after `timeoutMs`. */
async function modernEra(url: string, seconds: number, timeoutMs: number): Promise<EraLongJob> {
  const plainStarted = performance.now();
  const plain = modernRequest(
    { url, tasks: false, timeoutMs },
    'tools/call',
    job(seconds, 'modern-plain'),
  ).then(
    (answer) => ({
      ok: answer.result !== undefined && answer.result.isError !== true,
      ms: performance.now() - plainStarted,
    }),
    (error: Error) => ({ ok: false, ms: performance.now() - plainStarted, error: error.message }),
  );
  const started = performance.now();
  const created = await modernRequest(
    { url, timeoutMs },
    'tools/call',
    job(seconds, 'modern-task'),
  );
  const taskId = String(created.result?.taskId);
  const pollMs = Number(created.result?.pollIntervalMs ?? 1000);
  let polls = 0;
  let detailed = created.result ?? {};
  while (detailed.status === 'working' || detailed.status === 'input_required') {
    await delay(pollMs);
    detailed = (await modernRequest({ url, timeoutMs }, 'tasks/get', { taskId })).result ?? {};
    polls += 1;
  }
  return {
    plain: await plain,
    task: {
      ok:
        detailed.status === 'completed' &&
        JSON.stringify(detailed.result ?? null).includes('modern-task-done'),
      ms: performance.now() - started,
      polls,
    },
  };
}

/**
 * Starts `toolsys serve --http` (shell commands allowed without asking) and runs the long job in
 * both eras at once; stops the host at the end.
 */
export async function longJobOverMcp(
  seconds: number,
  clientTimeoutMs: number,
): Promise<LongJobOverMcp> {
  const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-tasks-mcp-')));
  const config = join(scratch, 'toolsys.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      workspaceRoot: scratch,
      dataDir: join(scratch, 'data'),
      permissions: { alwaysAllow: ['shell_execute'] },
    }),
  );
  const { child, url } = await startHostHttp(config, scratch, 'toolsys serve --http', 120_000);
  try {
    const [legacy, modern] = await Promise.all([
      legacyEra(url, seconds, clientTimeoutMs),
      modernEra(url, seconds, clientTimeoutMs),
    ]);
    return { legacy, modern };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => {
      if (child.exitCode !== null) resolve(undefined);
      else child.once('exit', resolve);
    });
    rmSync(scratch, { recursive: true, force: true });
  }
}
