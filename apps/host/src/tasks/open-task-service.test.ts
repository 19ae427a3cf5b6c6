import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  createToolExecutor,
  defineTool,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTaskService, TASKS_DATABASE_FILE } from './open-task-service.js';

let dir: string;

beforeEach(async () => {
  dir = await createTempDir('toolsys-host-tasks-');
});

afterEach(async () => {
  await removeTempDir(dir);
});

describe('openTaskService', () => {
  it('keeps tasks in SQLite under the data dir, readable after a reopen', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        id: 'slow_echo',
        description: 'Echoes.',
        inputSchema: ToolSchema.object({}),
        metadata: {
          category: 'utility',
          risk: 'LOW',
          annotations: ToolHints.readOnly,
          taskSupport: 'optional',
        },
        execute: () => 'echo',
      }),
    );
    const executor = createToolExecutor({ registry });
    const first = await openTaskService({ executor, dataDir: dir });
    expect(first.storeKind).toBe('sqlite');
    const task = await first.service.create('slow_echo', {});
    await first.service.result(task.taskId);
    await first.close();
    expect(existsSync(join(dir, TASKS_DATABASE_FILE))).toBe(true);
    const second = await openTaskService({ executor, dataDir: dir });
    try {
      const { task: done, result } = await second.service.result(task.taskId);
      expect(done.status).toBe('completed');
      expect(result).toMatchObject({ ok: true, content: 'echo' });
    } finally {
      await second.close();
    }
  });
});
