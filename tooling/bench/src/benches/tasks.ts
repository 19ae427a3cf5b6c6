import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolExecutor,
  defineTool,
  type PipelineToolExecutor,
  successResult,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { runProcess } from '@toolsys/platform';
import { SqliteTaskStore, TaskService } from '@toolsys/tasks';
import { readPidFile, waitForPidGone } from '@toolsys/test-support';
import { z } from 'zod';
import { removeOnExit } from '../cleanup.js';
import { type Bench, formatRatio, percentile } from '../report.js';
import { longJobOverMcp } from './tasks-mcp.js';

/** Cancel to stopped: the processes of a cancelled task end within this. */
const TARGET_CANCEL_MS = 2_000;
/** A task costs at most this much more than a plain call of a 1 s job. */
const TARGET_OVERHEAD_RATIO = 1.1;
/** A client gives up on a plain call after this (the common default), in the full run. */
const CLIENT_TIMEOUT_MS = 60_000;
/** The long job of the full run: three minutes. */
const LONG_JOB_SECONDS = 180;

const principal = { id: 'bench', kind: 'local', scopes: ['*'] } as const;

/** An executor whose one tool sleeps in a real bash process, writing its pid to `<dir>/<name>`. */
function benchExecutor(dir: string): PipelineToolExecutor {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      id: 'bench.sleep',
      description: 'Sleeps in bash for the given seconds.',
      inputSchema: ToolSchema.object({ seconds: z.number(), name: z.string() }),
      metadata: {
        category: 'shell',
        risk: 'LOW',
        annotations: ToolHints.mutating,
        taskSupport: 'optional',
      },
      async execute(args, context) {
        const outcome = await runProcess({
          command: `echo $$ > ${join(dir, args.name)}; exec sleep ${args.seconds}`,
          cwd: dir,
          timeoutMs: 3_600_000,
          signal: context.signal,
        });
        return successResult(`slept ${args.seconds}s (exit ${outcome.exitCode})`);
      },
    }),
  );
  return createToolExecutor({ registry });
}

/** The seconds of the long job: `--job-seconds=N`, else 6 for `--quick`, else 180. */
function longJobSeconds(quick: boolean): number {
  const flag = process.argv.find((arg) => arg.startsWith('--job-seconds='));
  const given = flag ? Number(flag.slice('--job-seconds='.length)) : Number.NaN;
  if (Number.isFinite(given) && given > 0) return given;
  return quick ? 6 : LONG_JOB_SECONDS;
}

/** Cancel-to-stopped of a running bash process, in ms per round. */
async function measureCancel(service: TaskService, dir: string, rounds: number) {
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const name = `cancel-${round}`;
    const task = await service.create('bench.sleep', { seconds: 600, name }, { principal });
    const pid = await readPidFile(join(dir, name));
    const started = performance.now();
    await service.cancel(task.taskId, principal);
    await waitForPidGone(pid, 10_000);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/** Wall time of a 1 s job as a plain call and as a task read back through result(), per round. */
async function measureOverhead(
  executor: PipelineToolExecutor,
  service: TaskService,
  rounds: number,
) {
  const plain: number[] = [];
  const task: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    let started = performance.now();
    const direct = await executor.execute('bench.sleep', { seconds: 1, name: `plain-${round}` });
    plain.push(performance.now() - started);
    if (!direct.ok) throw new Error(`the plain call failed: ${direct.error.message}`);
    started = performance.now();
    const created = await service.create(
      'bench.sleep',
      { seconds: 1, name: `task-${round}` },
      { principal },
    );
    const { result } = await service.result(created.taskId, principal);
    task.push(performance.now() - started);
    if (!result.ok) throw new Error(`the task failed: ${result.error.message}`);
  }
  return { plain: plain.sort((a, b) => a - b), task: task.sort((a, b) => a - b) };
}

/** Long calls as tasks: cancel latency, the cost of a task over a plain call, a long job polled. */
export const tasksBench: Bench = {
  name: 'tasks',
  summary:
    'Tasks: cancel-to-stopped of a real bash process, a task over a plain call for a 1 s job, a 3-minute job over MCP in both eras through polling and a reconnect while a plain call with a 60 s client timeout fails.',
  async run({ quick }) {
    const dir = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-tasks-')));
    const executor = benchExecutor(dir);
    const store = SqliteTaskStore.open({ path: join(dir, 'data', 'tasks.sqlite') });
    const service = new TaskService({ executor, store, pollIntervalMs: quick ? 200 : 1000 });
    try {
      const cancel = await measureCancel(service, dir, quick ? 3 : 10);
      const overhead = await measureOverhead(executor, service, quick ? 2 : 5);
      const seconds = longJobSeconds(quick);
      const clientTimeoutMs = Math.min(CLIENT_TIMEOUT_MS, Math.floor((seconds * 1000) / 3));
      const long = await longJobOverMcp(seconds, clientTimeoutMs);
      const cancelP50 = percentile(cancel, 0.5);
      const cancelMax = cancel.at(-1) ?? Number.NaN;
      const plainP50 = percentile(overhead.plain, 0.5);
      const taskP50 = percentile(overhead.task, 0.5);
      const ratio = taskP50 / plainP50;
      const met =
        cancelMax <= TARGET_CANCEL_MS &&
        ratio <= TARGET_OVERHEAD_RATIO &&
        [long.legacy, long.modern].every((era) => era.task.ok && !era.plain.ok);
      return {
        name: 'tasks',
        target: `cancel-to-stopped <= ${TARGET_CANCEL_MS} ms, task/plain (1 s job) <= ${TARGET_OVERHEAD_RATIO}, a ${seconds} s job over MCP (both eras) completes as a task across a reconnect while the plain call fails at the ${clientTimeoutMs / 1000} s client timeout`,
        met,
        lines: [
          `cancel-to-stopped of a bash process: p50 ${cancelP50.toFixed(0)} ms, max ${cancelMax.toFixed(0)} ms over ${cancel.length} tasks`,
          `1 s job: plain call p50 ${plainP50.toFixed(0)} ms, as a task p50 ${taskP50.toFixed(0)} ms; ratio task/plain ${formatRatio(ratio)}`,
          ...(['legacy', 'modern'] as const).map((era) => {
            const { plain, task } = long[era];
            return `${seconds} s job over MCP ${era === 'legacy' ? '2025-11-25' : '2026-07-28'}: plain call with a ${clientTimeoutMs / 1000} s client timeout ${plain.ok ? 'succeeded' : 'failed'} after ${(plain.ms / 1000).toFixed(1)} s; as a task ${task.ok ? 'completed' : 'did NOT complete'} after ${(task.ms / 1000).toFixed(1)} s through ${task.polls} polls${era === 'legacy' ? ', reconnecting half-way' : ''}`;
          }),
        ],
        json: {
          ratio,
          cancelToStoppedMs: { p50: cancelP50, max: cancelMax, samples: cancel },
          oneSecondJobMs: { plainP50, taskP50 },
          longJob: { seconds, clientTimeoutMs, ...long },
        },
      };
    } finally {
      await service.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
