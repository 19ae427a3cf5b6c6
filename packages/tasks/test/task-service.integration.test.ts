import { join } from 'node:path';
import type { CallPrincipal } from '@toolsys/core-tool-registry';
import { createTempDir, isAlive, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../src/sqlite-task-store.js';
import { TaskErrorCode } from '../src/task-error.js';
import { TaskService } from '../src/task-service.js';
import { pidOf, taskTestExecutor, until } from './task-tools.js';

const alice: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };
const mallory: CallPrincipal = { id: 'mallory', kind: 'oauth', scopes: [] };

let dir: string;
let store: SqliteTaskStore;
let service: TaskService;

function open(options: { clockAheadMs?: number } = {}): TaskService {
  const now = () => Date.now() + (options.clockAheadMs ?? 0);
  store = SqliteTaskStore.open({ path: join(dir, 'data', 'tasks.sqlite'), now });
  service = new TaskService({ executor: taskTestExecutor(dir), store, pollIntervalMs: 100, now });
  return service;
}

beforeEach(async () => {
  dir = await createTempDir('toolsys-tasks-');
  open();
});

afterEach(async () => {
  await service.close();
  await store.close();
  await removeTempDir(dir);
});

describe('TaskService on SQLite', () => {
  it('runs a call detached and keeps its result for the owner', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 'a', seconds: 0.3 },
      { principal: alice },
    );
    expect(task.status).toBe('working');
    expect(task.taskId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(task.pollInterval).toBe(100);
    const { task: done, result } = await service.result(task.taskId, alice);
    expect(done.status).toBe('completed');
    expect(result).toMatchObject({ ok: true, content: 'slept, exit 0' });
    expect((await service.list(alice)).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
  });

  it('records progress while the call runs', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 'p', seconds: 2 },
      { principal: alice },
    );
    await until(async () => (await service.get(task.taskId, alice)).progress !== undefined);
    const view = await service.get(task.taskId, alice);
    expect(view.progress).toMatchObject({ progress: 0, total: 2 });
    expect(view.task.statusMessage).toBe('started');
    await service.cancel(task.taskId, alice);
  });

  it('hides a task from another principal: get, result, cancel and answer are NOT_FOUND, list is empty', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 'o', seconds: 5 },
      { principal: alice },
    );
    for (const attempt of [
      () => service.get(task.taskId, mallory),
      () => service.result(task.taskId, mallory),
      () => service.cancel(task.taskId, mallory),
      () => service.answerInput(task.taskId, 'x', {}, mallory),
      () => service.get(task.taskId),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: TaskErrorCode.NOT_FOUND });
    }
    expect((await service.list(mallory)).tasks).toEqual([]);
    expect((await service.get(task.taskId, alice)).task.status).toBe('working');
    await service.cancel(task.taskId, alice);
  });

  it('cancel stops a real bash process within 2 s and says cancelled', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 'c', seconds: 60 },
      { principal: alice },
    );
    const pid = await pidOf(dir, 'c');
    expect(isAlive(pid)).toBe(true);
    const started = Date.now();
    const cancelled = await service.cancel(task.taskId, alice);
    expect(cancelled.status).toBe('cancelled');
    await until(() => !isAlive(pid), 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    const { result } = await service.result(task.taskId, alice);
    expect(result).toMatchObject({ ok: false, error: { details: { cancelled: true } } });
    await expect(service.cancel(task.taskId, alice)).rejects.toMatchObject({
      code: TaskErrorCode.ALREADY_TERMINAL,
    });
  });

  it('a tool that ignores its signal is still reported cancelled and its processes killed', async () => {
    const task = await service.create('test.hostile', { name: 'h' }, { principal: alice });
    const pid = await pidOf(dir, 'h');
    const started = Date.now();
    await service.cancel(task.taskId, alice);
    await until(() => !isAlive(pid), 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await service.get(task.taskId, alice)).task.status).toBe('cancelled');
  });

  it('puts a task that asks in input_required, with the question readable and answerable', async () => {
    const task = await service.create('test.ask', {}, { principal: alice });
    await until(
      async () => (await service.get(task.taskId, alice)).task.status === 'input_required',
    );
    const view = await service.get(task.taskId, alice);
    expect(view.inputRequest?.request).toMatchObject({ method: 'elicitation/create' });
    const requestId = view.inputRequest?.requestId ?? '';
    await expect(service.answerInput(task.taskId, 'wrong', {}, alice)).rejects.toMatchObject({
      code: TaskErrorCode.NO_PENDING_INPUT,
    });
    await service.answerInput(
      task.taskId,
      requestId,
      { action: 'accept', content: { c: 'red' } },
      alice,
    );
    const { result } = await service.result(task.taskId, alice);
    expect(result).toMatchObject({
      ok: true,
      content: 'answer: {"action":"accept","content":{"c":"red"}}',
    });
  });

  it('refuses a tool that forbids tasks and an unknown tool', async () => {
    await expect(service.create('test.quick', {}, { principal: alice })).rejects.toMatchObject({
      code: TaskErrorCode.TASK_NOT_SUPPORTED,
    });
    await expect(service.create('test.nope', {}, { principal: alice })).rejects.toMatchObject({
      code: TaskErrorCode.TOOL_NOT_FOUND,
    });
    expect(service.taskSupport('test.ask')).toBe('required');
  });

  it('keeps results and reports a task that ran when the host died as failed after a restart', async () => {
    const done = await service.create(
      'test.sleep',
      { name: 'd', seconds: 0 },
      { principal: alice },
    );
    await service.result(done.taskId, alice);
    const running = await service.create('test.hostile', { name: 'r' }, { principal: alice });
    const pid = await pidOf(dir, 'r');
    // The host dies: its service never ends the task; it stops marking itself alive (its clock
    // runs on past the heartbeat's time-to-live), and a new host opens the same file.
    const dead = { service, store };
    open({ clockAheadMs: 6_000 });
    const after = await service.get(running.taskId, alice);
    expect(after.task.status).toBe('failed');
    expect(after.task.statusMessage).toMatch(/host running this task stopped/);
    // What the dead host left running is ended with its task.
    await until(() => !isAlive(pid), 2_000);
    expect((await service.result(done.taskId, alice)).result).toMatchObject({ ok: true });
    await dead.service.close();
    await dead.store.close();
  });

  it('two hosts on one file see each other alive, and a cancel given to one stops the other’s process', async () => {
    const task = await service.create(
      'test.sleep',
      { name: 's', seconds: 60 },
      { principal: alice },
    );
    const pid = await pidOf(dir, 's');
    const first = { service, store };
    open();
    try {
      expect((await service.get(task.taskId, alice)).task.status).toBe('working');
      expect((await service.cancel(task.taskId, alice)).status).toBe('cancelled');
      await until(() => !isAlive(pid), 2_000);
    } finally {
      await first.service.close();
      await first.store.close();
    }
  });

  it('bounds a huge result in bytes', async () => {
    const task = await service.create('test.huge', {}, { principal: alice });
    const { result } = await service.result(task.taskId, alice);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(1_048_576);
    expect(result.ok && result.content).toMatch(/Result cut/);
  });
});

describe('TaskService questions and crashes', () => {
  it('waits on every question a tool asks at once; answers one at a time; ignores what it does not wait on', async () => {
    const task = await service.create('test.ask_two', {}, { principal: alice });
    await until(async () => (await service.get(task.taskId, alice)).inputRequests?.length === 2);
    const [first, second] = (await service.get(task.taskId, alice)).inputRequests ?? [];
    const partial = await service.answerInputs(
      task.taskId,
      {
        [first?.requestId ?? '']: { action: 'accept', content: { n: 1 } },
        stale: { action: 'accept' },
      },
      alice,
    );
    expect(partial.ignored).toEqual(['stale']);
    await until(async () => (await service.get(task.taskId, alice)).inputRequests?.length === 1);
    const waiting = await service.get(task.taskId, alice);
    expect(waiting.task.status).toBe('input_required');
    expect(waiting.inputRequests?.map((q) => q.requestId)).toEqual([second?.requestId]);
    await expect(
      service.answerInput(task.taskId, first?.requestId ?? '', { action: 'accept' }, alice),
    ).rejects.toMatchObject({ code: TaskErrorCode.NO_PENDING_INPUT });
    await service.answerInputs(
      task.taskId,
      { [second?.requestId ?? '']: { action: 'accept', content: { n: 2 } } },
      alice,
    );
    const { task: done, result } = await service.result(task.taskId, alice);
    expect(done.status).toBe('completed');
    expect(result).toMatchObject({ ok: true, content: 'first={"n":1} second={"n":2}' });
  });

  it('gives a question asked under a key the answer given before the task started', async () => {
    const task = await service.create(
      'test.ask_two',
      {},
      {
        principal: alice,
        answers: { first: { action: 'accept', content: { early: true } } },
      },
    );
    await until(async () => (await service.get(task.taskId, alice)).inputRequests?.length === 1);
    const [only] = (await service.get(task.taskId, alice)).inputRequests ?? [];
    expect(only?.request).toMatchObject({ key: 'second' });
    await service.answerInput(task.taskId, only?.requestId ?? '', { action: 'decline' }, alice);
    const { result } = await service.result(task.taskId, alice);
    expect(result).toMatchObject({ content: 'first={"early":true} second=undefined' });
  });

  it('reports a tool that crashed as failed, saying so, with no result of its own', async () => {
    const task = await service.create('test.crash', {}, { principal: alice });
    const { task: done, result } = await service.result(task.taskId, alice);
    expect(done.status).toBe('failed');
    expect(done.statusMessage).toMatch(/crashed before it answered: the tool fell over/);
    expect(result.ok).toBe(false);
  });
});
