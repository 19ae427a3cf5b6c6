import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CallPrincipal } from '@toolsys/core-tool-registry';
import type { RedisTaskStore, SharedState } from '@toolsys/state-redis';
import { TaskErrorCode, type TaskService } from '@toolsys/tasks';
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
import { startTaskReplica } from './support/task-replica.js';

const REPLICA_SCRIPT = fileURLToPath(new URL('./support/task-replica.ts', import.meta.url));

/*
 * Issue 35 across replicas: two task services on one real redis-server. Either replica answers
 * for a task the other runs; a cancel given to one stops the processes on the other; a task
 * whose replica died (its process SIGKILLed) is reported failed, never left working; ownership
 * holds on every replica.
 */

const alice: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };
const mallory: CallPrincipal = { id: 'mallory', kind: 'oauth', scopes: [] };

let redis: RedisProcess;
let dir: string;
const replicas: { state: SharedState; service: TaskService; store: RedisTaskStore }[] = [];

async function replica(replicaId: string) {
  const entry = await startTaskReplica(redis.url, replicaId, dir);
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

  it('a task whose replica process was SIGKILLed is reported failed on the other replica', async () => {
    const b = await replica('r-b');
    const child = spawn(
      process.execPath,
      ['--conditions=@toolsys/source', '--import', 'tsx', REPLICA_SCRIPT, redis.url, 'r-dead', dir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let orphan: number | undefined;
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const started = JSON.parse(line) as { taskId: string; pid: number };
      orphan = started.pid;
      expect((await b.service.get(started.taskId, alice)).task.status).toBe('working');
      child.kill('SIGKILL');
      await once(child, 'exit');
      const killedAt = Date.now();
      let status = 'working';
      while (status === 'working') {
        expect(Date.now() - killedAt).toBeLessThan(10_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await b.service.get(started.taskId, alice)).task.status;
      }
      expect(status).toBe('failed');
      const view = await b.service.get(started.taskId, alice);
      expect(view.task.statusMessage).toMatch(/host running this task stopped/);
      // Its processes outlived it on this machine: they are ended with the task.
      await waitForPidGone(started.pid, 2_000);
      await expect(b.service.get(started.taskId, mallory)).rejects.toMatchObject({
        code: TaskErrorCode.NOT_FOUND,
      });
    } finally {
      child.kill('SIGKILL');
      if (orphan !== undefined && isAlive(orphan)) process.kill(orphan, 'SIGKILL');
    }
  }, 30_000);
});
