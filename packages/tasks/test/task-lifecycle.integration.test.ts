import { join } from 'node:path';
import type { CallPrincipal } from '@toolsys/core-tool-registry';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../src/sqlite-task-store.js';
import { TaskErrorCode } from '../src/task-error.js';
import { TaskService, type TaskStatusEvent } from '../src/task-service.js';
import { toProtocolTaskV2 } from '../src/task-view.js';
import { taskTestExecutor, until } from './task-tools.js';

const alice: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };

let dir: string;
let now = Date.now();
let store: SqliteTaskStore;
let service: TaskService;

beforeEach(async () => {
  dir = await createTempDir('toolsys-tasks-life-');
  now = Date.now();
  store = SqliteTaskStore.open({ path: join(dir, 'tasks.sqlite'), now: () => now });
  service = new TaskService({
    executor: taskTestExecutor(dir),
    store,
    pollIntervalMs: 100,
    defaultTtlMs: 60_000,
    maxTtlMs: 120_000,
    now: () => now,
  });
});

afterEach(async () => {
  await service.close();
  await store.close();
  await removeTempDir(dir);
});

describe('task lifecycle', () => {
  it('keeps an ended task for its time-to-live, bounded by the maximum, then forgets it', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 't', seconds: 0 },
      { principal: alice, ttlMs: 10_000_000 },
    );
    expect(task.ttl).toBe(120_000);
    await service.result(task.taskId, alice);
    now += 119_000;
    expect((await service.get(task.taskId, alice)).task.status).toBe('completed');
    now += 2_000;
    await expect(service.get(task.taskId, alice)).rejects.toMatchObject({
      code: TaskErrorCode.NOT_FOUND,
    });
    expect((await service.list(alice)).tasks).toEqual([]);
  });

  it('tells status listeners each change with the owner to tell', async () => {
    const events: TaskStatusEvent[] = [];
    service.onStatus((event) => events.push(event));
    const task = await service.create('test.ask', {}, { principal: alice });
    await until(() => events.some((event) => event.task.status === 'input_required'));
    const requestId = (await service.get(task.taskId, alice)).inputRequest?.requestId ?? '';
    await service.answerInput(task.taskId, requestId, { action: 'decline' }, alice);
    await service.result(task.taskId, alice);
    expect(new Set(events.map((event) => event.owner))).toEqual(new Set(['oauth:alice']));
    expect(events.map((event) => event.task.status)).toEqual(
      expect.arrayContaining(['working', 'input_required', 'completed']),
    );
  });

  it('stops waiting for a result when the caller’s signal fires, leaving the task running', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 'w', seconds: 30 },
      { principal: alice },
    );
    const controller = new AbortController();
    const waiting = service.result(task.taskId, alice, { signal: controller.signal });
    controller.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect((await service.get(task.taskId, alice)).task.status).toBe('working');
    await service.cancel(task.taskId, alice);
  });

  it('pages a principal’s tasks newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      now += 1;
      ids.push(
        (await service.create('test.sleep', { name: `l${i}`, seconds: 0 }, { principal: alice }))
          .taskId,
      );
    }
    const first = await service.list(alice, { limit: 2 });
    const second = await service.list(alice, { limit: 2, cursor: first.nextCursor ?? '' });
    const third = await service.list(alice, { limit: 2, cursor: second.nextCursor ?? '' });
    expect([...first.tasks, ...second.tasks, ...third.tasks].map((t) => t.taskId)).toEqual(
      ids.reverse(),
    );
    expect(third.nextCursor).toBeUndefined();
    for (const id of ids) await service.result(id, alice);
  });
});

describe('task results', () => {
  it('names its fields for the 2026-07-28 extension', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 'v', seconds: 0 },
      { principal: alice },
    );
    const v2 = toProtocolTaskV2(task);
    expect(v2).toMatchObject({ taskId: task.taskId, ttlMs: 60_000, pollIntervalMs: 100 });
    expect(v2).not.toHaveProperty('ttl');
    expect(v2).not.toHaveProperty('pollInterval');
    await service.result(task.taskId, alice);
  });

  it('a tool that reports an error completes with that result; the task did not fail', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 'e', seconds: 'soon' },
      { principal: alice },
    );
    const { task: done, result } = await service.result(task.taskId, alice);
    expect(done.status).toBe('completed');
    expect(done.statusMessage).toBe(
      'Completed with a tool error (INVALID_ARGUMENT); read the result for what to do next.',
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', field: 'seconds' },
    });
  });
});
