import { join } from 'node:path';
import {
  type CallPrincipal,
  createToolExecutor,
  defineTool,
  successResult,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { runProcess } from '@toolsys/platform';
import { createSharedState, RedisTaskStore, type SharedState } from '@toolsys/state-redis';
import { TaskErrorCode, TaskService } from '@toolsys/tasks';
import {
  createTempDir,
  isAlive,
  type RedisProcess,
  readPidFile,
  removeTempDir,
  startRedis,
  waitForPidGone,
} from '@toolsys/test-support';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/*
 * Issue 35 across replicas: two task services on one real redis-server. Either replica answers
 * for a task the other runs; a cancel given to one stops the processes on the other; a task
 * whose replica died is reported failed, never left working; ownership holds on every replica.
 */

const alice: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };
const mallory: CallPrincipal = { id: 'mallory', kind: 'oauth', scopes: [] };

let redis: RedisProcess;
let dir: string;
const replicas: { state: SharedState; service: TaskService; store: RedisTaskStore }[] = [];

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    defineTool({
      id: 'slow.sleep',
      description: 'Sleeps in bash for the given seconds, writing its pid to the named file.',
      inputSchema: ToolSchema.fromRendered({
        type: 'object',
        properties: { seconds: { type: 'number' }, name: { type: 'string' } },
        required: ['seconds', 'name'],
      }),
      metadata: {
        category: 'shell',
        risk: 'LOW',
        annotations: ToolHints.mutating,
        taskSupport: 'optional',
      },
      async execute(args, context) {
        const { seconds, name } = args as { seconds: number; name: string };
        const outcome = await runProcess({
          command: `echo $$ > ${join(dir, name)}; exec sleep ${seconds}`,
          cwd: dir,
          timeoutMs: 600_000,
          signal: context.signal,
        });
        return successResult(`slept ${seconds}s, exit ${outcome.exitCode}`);
      },
    }),
  );
  return tools;
}

async function replica(replicaId: string) {
  const state = createSharedState({
    url: redis.url,
    keyPrefix: 'tasks-test:',
    replicaId,
    probeIntervalMs: 100,
    heartbeatIntervalMs: 100,
  });
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  await state.heartbeat.beat();
  const store = new RedisTaskStore({ connection: state.connection, heartbeat: state.heartbeat });
  const service = new TaskService({
    executor: createToolExecutor({ registry: registry() }),
    store,
    pollIntervalMs: 100,
    controlPollMs: 200,
  });
  const entry = { state, service, store };
  replicas.push(entry);
  return entry;
}

function pidOf(name: string): Promise<number> {
  return readPidFile(join(dir, name));
}

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  await redis?.stop();
});

beforeEach(async () => {
  dir = await createTempDir('toolsys-tasks-replicas-');
});

afterEach(async () => {
  for (const { service, store, state } of replicas.splice(0)) {
    await service.close();
    await store.close();
    await state.close();
  }
  await redis.cli('FLUSHALL');
  await removeTempDir(dir);
});

describe('tasks across replicas', () => {
  it('either replica answers get and result for a task running on the other', async () => {
    const a = await replica('r-a');
    const b = await replica('r-b');
    const task = await a.service.create(
      'slow.sleep',
      { seconds: 1, name: 'p1' },
      { principal: alice },
    );
    expect((await b.service.get(task.taskId, alice)).task.status).toBe('working');
    const { task: done, result } = await b.service.result(task.taskId, alice);
    expect(done.status).toBe('completed');
    expect(result).toMatchObject({ ok: true, content: 'slept 1s, exit 0' });
    expect((await b.service.list(alice)).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    await expect(b.service.get(task.taskId, mallory)).rejects.toMatchObject({
      code: TaskErrorCode.NOT_FOUND,
    });
    expect((await b.service.list(mallory)).tasks).toEqual([]);
  });

  it('a cancel given to one replica stops the process on the replica that runs it within 2 s', async () => {
    const a = await replica('r-a');
    const b = await replica('r-b');
    const task = await a.service.create(
      'slow.sleep',
      { seconds: 120, name: 'p2' },
      { principal: alice },
    );
    const pid = await pidOf('p2');
    await expect(b.service.cancel(task.taskId, mallory)).rejects.toMatchObject({
      code: TaskErrorCode.NOT_FOUND,
    });
    expect(isAlive(pid)).toBe(true);
    expect((await b.service.cancel(task.taskId, alice)).status).toBe('cancelled');
    await waitForPidGone(pid, 2_000);
    expect((await a.service.get(task.taskId, alice)).task.status).toBe('cancelled');
  });

  it('a task whose replica died is reported failed on the other, never left working', async () => {
    const a = await replica('r-a');
    const b = await replica('r-b');
    const task = await a.service.create(
      'slow.sleep',
      { seconds: 120, name: 'p3' },
      { principal: alice },
    );
    await pidOf('p3');
    // Replica A stops beating (its process is gone as far as Redis can tell).
    await a.state.heartbeat.close();
    const view = await b.service.get(task.taskId, alice);
    expect(view.task.status).toBe('failed');
    expect(view.task.statusMessage).toMatch(/host running this task stopped/);
    const { result } = await b.service.result(task.taskId, alice);
    expect(result.ok).toBe(false);
  });
});
