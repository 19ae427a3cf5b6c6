// The worker side of the CPU tool pool: builds a tool from its tool set's module and runs one call.
import { workerData } from 'node:worker_threads';
import type { AnyToolDefinition, ToolContext } from '@toolsys/core-tool-registry';
import { isToolError } from '@toolsys/core-tool-registry';
import type { CpuTask, CpuTaskOutcome, CpuWorkerModule } from './cpu-task.js';

/** Tool-set modules imported so far in this worker, by URL. */
const modules = new Map<string, Promise<CpuWorkerModule>>();
// The pool names its tool set's module in the worker data. Importing it while the worker starts
// (the pool counts a worker ready once this file has loaded) keeps the libraries' load, seconds on
// a loaded machine, out of the first task's time limit; a failed import fails that task instead.
const preload = (workerData as { module?: unknown } | null)?.module;
if (typeof preload === 'string') {
  const loading = import(preload) as Promise<CpuWorkerModule>;
  modules.set(preload, loading);
  await loading.catch(() => undefined);
}

/** Tools built so far in this worker, by module URL and id (each on its first call). */
const tools = new Map<string, AnyToolDefinition | undefined>();
// The pool ends a task by terminating this thread, so a handler here never sees its signal fire.
const NEVER_ABORTED = new AbortController().signal;

/**
 * The worker side of the CPU tool pool: runs one tool call and returns what the handler returned or
 * threw, in a form that crosses the thread boundary (a ToolError keeps its code and options).
 */
export default async function runCpuTask(task: CpuTask): Promise<CpuTaskOutcome> {
  const key = `${task.module}#${task.toolId}`;
  if (!tools.has(key)) {
    let loaded = modules.get(task.module);
    if (loaded === undefined) {
      loaded = import(task.module) as Promise<CpuWorkerModule>;
      modules.set(task.module, loaded);
    }
    tools.set(key, (await loaded).loadCpuTool(task.toolId));
  }
  const tool = tools.get(key);
  if (tool === undefined) {
    return { kind: 'error', message: `${task.toolId} does not run in the CPU tool pool` };
  }
  const context: ToolContext = {
    callId: task.callId,
    sessionId: task.sessionId,
    attempt: task.attempt,
    signal: NEVER_ABORTED,
    emit: () => {},
    confirm: async () => 'deny',
  };
  try {
    return { kind: 'returned', value: await tool.execute(task.args, context) };
  } catch (thrown) {
    if (isToolError(thrown)) {
      const { cause: _cause, ...options } = thrown.options;
      return { kind: 'tool-error', code: thrown.code, message: thrown.message, options };
    }
    return { kind: 'error', message: thrown instanceof Error ? thrown.message : String(thrown) };
  }
}
