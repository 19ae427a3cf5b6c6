// A task replica for the tests: a task service on the shared Redis with one tool that sleeps in
// bash. Run as a script (`node --import tsx task-replica.ts <redis-url> <replica-id> <dir>`), it
// creates one task for `oauth:alice`, prints `{"taskId", "pid"}` on a line and runs until killed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createToolExecutor,
  defineTool,
  successResult,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { runProcess } from '@toolsys/platform';
import { createSharedState, RedisTaskStore, type SharedState } from '@toolsys/state-redis';
import { TaskService } from '@toolsys/tasks';

/** A registry whose `slow.sleep` sleeps in bash, writing its pid to `<dir>/<name>`. */
export function sleepRegistry(dir: string): ToolRegistry {
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

/** A replica: shared state on `url`, a Redis task store and a task service over `slow.sleep`. */
export async function startTaskReplica(url: string, replicaId: string, dir: string) {
  const state: SharedState = createSharedState({
    url,
    keyPrefix: 'tasks-test:',
    replicaId,
    probeIntervalMs: 100,
    heartbeatIntervalMs: 100,
  });
  if (!(await state.connection.waitUntilShared(5000))) throw new Error('Redis did not answer');
  await state.heartbeat.beat();
  const store = new RedisTaskStore({ connection: state.connection, heartbeat: state.heartbeat });
  const service = new TaskService({
    executor: createToolExecutor({ registry: sleepRegistry(dir) }),
    store,
    pollIntervalMs: 100,
    controlPollMs: 200,
  });
  return { state, store, service };
}

if (process.argv[1]?.endsWith('task-replica.ts')) {
  const [url, replicaId, dir] = process.argv.slice(2) as [string, string, string];
  const { service } = await startTaskReplica(url, replicaId, dir);
  const alice = { id: 'alice', kind: 'oauth', scopes: [] } as const;
  const task = await service.create(
    'slow.sleep',
    { seconds: 300, name: 'child' },
    { principal: alice },
  );
  let pid = '';
  while (!/^\d+$/.test(pid)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    pid = (await readFile(join(dir, 'child'), 'utf8').catch(() => '')).trim();
  }
  process.stdout.write(`${JSON.stringify({ taskId: task.taskId, pid: Number(pid) })}\n`);
  setInterval(() => {}, 60_000);
}
