import type { TaskRecord, TaskSignal } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createSharedState, RedisTaskStore, type SharedState } from '../src/index.js';
import { until, useRedis } from './redis-fixture.js';

// Two "replicas", each with its own connection and heartbeat, against one real redis-server.

const redis = useRedis();
const { opened } = redis;

async function replica(replicaId: string): Promise<{ state: SharedState; store: RedisTaskStore }> {
  const state = createSharedState({
    url: redis.server.url,
    keyPrefix: 'test:',
    replicaId,
    probeIntervalMs: 100,
    heartbeatIntervalMs: 100,
  });
  opened.push(state);
  expect(await state.connection.waitUntilShared(5000)).toBe(true);
  await state.heartbeat.beat();
  return {
    state,
    store: new RedisTaskStore({ connection: state.connection, heartbeat: state.heartbeat }),
  };
}

function task(replicaId: string, taskId: string, createdAt = Date.now()): TaskRecord {
  return {
    taskId,
    owner: 'oauth:alice',
    toolId: 'slow',
    status: 'working',
    createdAt,
    lastUpdatedAt: createdAt,
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    replicaId,
  };
}

describe('RedisTaskStore', () => {
  it('answers on any replica for a task another one runs, and never changes an ended task', async () => {
    const a = await replica('r-a');
    const b = await replica('r-b');
    await a.store.create(task('r-a', 't1'));
    expect(await b.store.get('t1')).toMatchObject({ taskId: 't1', replicaId: 'r-a' });
    const done = await b.store.update('t1', {
      status: 'completed',
      result: { ok: true, content: 'done', data: { rows: [] } },
    });
    expect(done).toMatchObject({ status: 'completed', result: { data: { rows: [] } } });
    const late = await a.store.update('t1', { status: 'failed' });
    expect(late?.status).toBe('completed');
    expect(Number(await redis.admin.pttl('test:tasks:t:t1'))).toBeGreaterThan(50_000);
  });

  it('lists only the owner’s tasks, newest first, in pages', async () => {
    const a = await replica('r-a');
    for (let i = 0; i < 5; i += 1) await a.store.create(task('r-a', `t${i}`, 1000 + i));
    await a.store.create({ ...task('r-a', 'other'), owner: 'oauth:mallory' });
    const first = await a.store.list('oauth:alice', { limit: 3 });
    expect(first.tasks.map((t) => t.taskId)).toEqual(['t4', 't3', 't2']);
    const second = await a.store.list('oauth:alice', { limit: 3, cursor: first.nextCursor ?? '' });
    expect(second.tasks.map((t) => t.taskId)).toEqual(['t1', 't0']);
    expect(second.nextCursor).toBeUndefined();
    expect((await a.store.list('oauth:mallory', { limit: 10 })).tasks.map((t) => t.taskId)).toEqual(
      ['other'],
    );
  });

  it('carries a cancel to the replica running the task by pub/sub', async () => {
    const a = await replica('r-a');
    const b = await replica('r-b');
    const received: TaskSignal[] = [];
    a.store.onSignal((message) => received.push(message));
    await until(() => a.state.connection.status().subscriber?.state === 'subscribed');
    await b.store.signal({ kind: 'cancel', taskId: 't1' }, 'r-a');
    await until(() => received.length === 1);
    expect(received).toEqual([{ kind: 'cancel', taskId: 't1' }]);
  });

  it('tells a live replica from one whose heartbeat stopped', async () => {
    const a = await replica('r-a');
    const b = await replica('r-b');
    expect(await a.store.isReplicaAlive('r-b')).toBe(true);
    expect(await a.store.isReplicaAlive('r-never')).toBe(false);
    await b.state.close();
    opened.splice(opened.indexOf(b.state), 1);
    expect(await a.store.isReplicaAlive('r-b')).toBe(false);
  });

  it('rejects while Redis does not answer instead of guessing', async () => {
    const a = await replica('r-a');
    redis.server.pause();
    try {
      await expect(a.store.get('t1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(a.store.isReplicaAlive('r-b')).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
    } finally {
      redis.server.resume();
    }
  });
});
