import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  freePort,
  type HaproxyProcess,
  type ModernAnswer,
  modernRequest,
  pollTask,
  type RedisProcess,
  startHaproxy,
  startRedis,
} from '@toolsys/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Two real `toolsys serve --http` processes sharing a real redis-server, behind a real HAProxy
// started with the shipped deploy/haproxy.cfg. A task runs on one replica; either answers for
// it; the replica is then SIGKILLed, and the task is reported failed, never left working.

const HOST_DIR = resolve(import.meta.dirname, '..');
const CLI_ARGS = ['--conditions=@toolsys/source', '--import', 'tsx', join(HOST_DIR, 'src/cli.ts')];
const SLOW = { timeout: 240_000 };
/** A command no other process on the machine runs: the task's, found by its argument. */
const SLEEP_SECONDS = '47.25';

let scratch: string;
let redis: RedisProcess;
let haproxy: HaproxyProcess;
const replicas: { name: string; url: string; child: ChildProcess }[] = [];

async function startReplica(name: string, replicaId: string, lbPort: number) {
  const port = await freePort();
  const dir = join(scratch, replicaId);
  const configPath = join(scratch, `${replicaId}.json`);
  writeFileSync(
    configPath,
    JSON.stringify({
      workspaceRoot: scratch,
      dataDir: join(dir, 'data'),
      state: { redis: { url: redis.url, keyPrefix: 'tasks-lb:', replicaId } },
      server: { allowedHosts: [`127.0.0.1:${lbPort}`] },
      permissions: { alwaysAllow: ['shell_execute'] },
    }),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, INIT_CWD: scratch };
  delete env.TOOLSYS_TOKEN;
  delete env.TOOLSYS_CONFIG;
  const child = spawn(
    process.execPath,
    [
      ...CLI_ARGS,
      'serve',
      '--http',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--config',
      configPath,
    ],
    { cwd: HOST_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  });
  const deadline = Date.now() + 150_000;
  while (!output.includes('Dashboard:')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`replica ${replicaId} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  replicas.push({ name, url: `http://127.0.0.1:${port}/mcp`, child });
}

/** Whether the task's `sleep` still runs anywhere on this machine. */
function sleepRuns(): boolean {
  try {
    return (
      execFileSync('pgrep', ['-f', `sleep ${SLEEP_SECONDS}`])
        .toString()
        .trim() !== ''
    );
  } catch {
    return false;
  }
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-tasks-lb-'));
  redis = await startRedis();
  const lbPort = await freePort();
  // HAProxy names the servers replica1, replica2 in the order given.
  await Promise.all([startReplica('replica1', 'a', lbPort), startReplica('replica2', 'b', lbPort)]);
  replicas.sort((x, y) => x.name.localeCompare(y.name));
  haproxy = await startHaproxy(
    replicas.map((replica) => new URL(replica.url).host),
    { port: lbPort },
  );
}, 300_000);

afterAll(async () => {
  await haproxy?.stop();
  for (const { child } of replicas) if (child.exitCode === null) child.kill('SIGKILL');
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('tasks behind HAProxy with two replicas sharing Redis', SLOW, () => {
  it('a cancel sent to the replica that does not run the task ends its process there within 2 s', async () => {
    const lb = { url: `${haproxy.url}/mcp` };
    const created = await modernRequest(lb, 'tools/call', {
      name: 'shell_execute',
      arguments: { command: `sleep ${SLEEP_SECONDS}; echo finished`, timeoutMs: 120_000 },
    });
    const taskId = String(created.result?.taskId);
    const other = replicas.find((replica) => replica.name !== created.servedBy);
    if (other === undefined) throw new Error(`served by ${created.servedBy}`);
    await expect.poll(sleepRuns, { timeout: 10_000 }).toBe(true);
    const started = Date.now();
    expect(
      (await modernRequest({ url: other.url }, 'tasks/cancel', { taskId })).result,
    ).toMatchObject({
      resultType: 'complete',
    });
    await expect.poll(sleepRuns, { timeout: 2_000, interval: 100 }).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await pollTask(lb, taskId, () => true)).status).toBe('cancelled');
  });

  it('2025-11-25: a task started on one replica is read with tasks/result on the other', async () => {
    const [first, second] = replicas;
    if (first === undefined || second === undefined) throw new Error('two replicas expected');
    const connect = async (url: string) => {
      const client = new Client({ name: 'tasks-lb', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    };
    const onFirst = await connect(first.url);
    const { task } = await onFirst.request(
      {
        method: 'tools/call',
        params: {
          name: 'shell_execute',
          arguments: { command: 'sleep 1; echo across-replicas' },
          task: {},
        },
      },
      CreateTaskResultSchema,
    );
    await onFirst.close();
    const onSecond = await connect(second.url);
    try {
      const result = await onSecond.request(
        { method: 'tasks/result', params: { taskId: task.taskId } },
        CallToolResultSchema,
      );
      expect(JSON.stringify(result.content)).toContain('across-replicas');
    } finally {
      await onSecond.close();
    }
  });

  it('either replica answers for a task; when its replica is killed the task is failed, not working, and its process is ended', async () => {
    const lb = { url: `${haproxy.url}/mcp` };
    const created = await modernRequest(lb, 'tools/call', {
      name: 'shell_execute',
      arguments: { command: `sleep ${SLEEP_SECONDS}; echo finished`, timeoutMs: 120_000 },
    });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = String(created.result?.taskId);
    const owner = replicas.find((replica) => replica.name === created.servedBy);
    const other = replicas.find((replica) => replica !== owner);
    if (owner === undefined || other === undefined)
      throw new Error(`served by ${created.servedBy}`);

    // Both replicas read it, and HAProxy may send a tasks/get to either.
    for (const replica of replicas) {
      const read: ModernAnswer = await modernRequest({ url: replica.url }, 'tasks/get', { taskId });
      expect(read.result).toMatchObject({ taskId, status: 'working' });
    }
    const served = new Set<string>();
    for (let i = 0; i < 6; i += 1) {
      const read = await modernRequest(lb, 'tasks/get', { taskId });
      expect(read.result?.status).toBe('working');
      if (read.servedBy) served.add(read.servedBy);
    }
    expect(served.size).toBe(2);
    await expect.poll(sleepRuns, { timeout: 10_000 }).toBe(true);

    owner.child.kill('SIGKILL');
    const failed = await pollTask(
      { url: other.url },
      taskId,
      (status) => status !== 'working',
      30_000,
    );
    expect(failed.status).toBe('failed');
    expect(String(failed.statusMessage)).toMatch(/stopped .* before the task ended/);
    expect(failed.error).toMatchObject({ code: -32603 });
    expect(failed).not.toHaveProperty('result');
    // The survivor ends what the dead replica left running on this machine.
    await expect.poll(sleepRuns, { timeout: 10_000 }).toBe(false);
    // Through the load balancer too (HAProxy has marked the dead replica down, or redispatches).
    const viaLb = await pollTask(lb, taskId, () => true, 30_000);
    expect(viaLb.status).toBe('failed');
  });
});
