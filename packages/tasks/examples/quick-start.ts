import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  defineTool,
  renderResult,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { SqliteTaskStore, TaskService } from '@toolsys/tasks';

const directory = mkdtempSync(join(tmpdir(), 'tasks-example-'));
const store = SqliteTaskStore.open({ path: join(directory, 'tasks.sqlite') });
try {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      id: 'build_report',
      description: 'Builds the weekly report (can take minutes). Returns its text.',
      inputSchema: ToolSchema.object({}),
      metadata: {
        category: 'utility',
        risk: 'LOW',
        annotations: ToolHints.readOnly,
        taskSupport: 'optional',
      },
      execute: async (_args, context) => {
        context.emit({ type: 'progress', progress: 1, total: 2, message: 'half way' });
        await new Promise((resolve) => setTimeout(resolve, 100));
        return 'report: all green';
      },
    }),
  );
  const service = new TaskService({ executor: createToolExecutor({ registry }), store });
  const alice = { id: 'alice', kind: 'oauth', scopes: [] } as const;

  const task = await service.create('build_report', {}, { principal: alice });
  console.log(task.status);
  const { task: done, result } = await service.result(task.taskId, alice);
  console.log(done.status, '-', renderResult(result));
  await service.get(task.taskId, { id: 'mallory', kind: 'oauth', scopes: [] }).catch((error) => {
    console.log(error.code);
  });
  await service.close();
} finally {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
}

// Prints:
// working
// completed - report: all green
// NOT_FOUND
