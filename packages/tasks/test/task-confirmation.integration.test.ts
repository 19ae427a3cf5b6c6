import { join } from 'node:path';
import {
  type CallPrincipal,
  createToolExecutor,
  defineTool,
  RiskAwareToolGate,
  ToolHints,
  ToolPermissionManager,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../src/sqlite-task-store.js';
import { TaskService } from '../src/task-service.js';
import { until } from './task-tools.js';

// A MEDIUM-risk tool under the default policy ("ask"): run as a task, the risk gate's question
// becomes the task's input request, answered later by the task's owner.

const alice: CallPrincipal = { id: 'alice', kind: 'oauth', scopes: [] };

let dir: string;
let store: SqliteTaskStore;
let service: TaskService;
let ran = 0;

beforeEach(async () => {
  dir = await createTempDir('toolsys-tasks-confirm-');
  ran = 0;
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      id: 'deploy.site',
      description: 'Deploys the site.',
      inputSchema: ToolSchema.object({}),
      metadata: {
        category: 'app',
        risk: 'MEDIUM',
        annotations: ToolHints.mutating,
        taskSupport: 'optional',
      },
      execute: () => {
        ran += 1;
        return 'deployed';
      },
    }),
  );
  const executor = createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(new ToolPermissionManager({})),
  });
  store = SqliteTaskStore.open({ path: join(dir, 'tasks.sqlite') });
  service = new TaskService({ executor, store, pollIntervalMs: 100 });
});

afterEach(async () => {
  await service.close();
  await store.close();
  await removeTempDir(dir);
});

async function question(taskId: string): Promise<{ requestId: string; message: string }> {
  await until(async () => (await service.get(taskId, alice)).task.status === 'input_required');
  const asked = (await service.get(taskId, alice)).inputRequest;
  return {
    requestId: asked?.requestId ?? '',
    message: String(asked?.request.params?.message ?? ''),
  };
}

describe('confirmations of a task', () => {
  it('wait in input_required and run once allowed', async () => {
    const task = await service.create('deploy.site', {}, { principal: alice });
    const asked = await question(task.taskId);
    expect(asked.message).toMatch(/^deploy\.site \(MEDIUM risk\) wants to: /);
    expect(ran).toBe(0);
    await service.answerInput(
      task.taskId,
      asked.requestId,
      { action: 'accept', content: { decision: 'allow_once' } },
      alice,
    );
    const { result } = await service.result(task.taskId, alice);
    expect(result).toMatchObject({ ok: true, content: 'deployed' });
    expect(ran).toBe(1);
  });

  it('refuse the call when declined, without running it', async () => {
    const task = await service.create('deploy.site', {}, { principal: alice });
    const asked = await question(task.taskId);
    await service.answerInput(task.taskId, asked.requestId, { action: 'decline' }, alice);
    const { task: done, result } = await service.result(task.taskId, alice);
    expect(done.status).toBe('completed');
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(ran).toBe(0);
  });
});
