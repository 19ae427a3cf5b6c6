import type { AnyToolDefinition, ToolContext } from '@toolsys/core-tool-registry';
import { isToolError } from '@toolsys/core-tool-registry';
import type { CpuTask, CpuTaskOutcome } from './cpu-task.js';
import { loadCpuTool } from './cpu-tool-definitions.js';

/** Tools built so far in this worker, by id (each on its first call). */
const tools = new Map<string, AnyToolDefinition | undefined>();
// The pool ends a task by terminating this thread, so a handler here never sees its signal fire.
const NEVER_ABORTED = new AbortController().signal;

/**
 * The worker side of the CPU tool pool: runs one tool call and returns what the handler returned or
 * threw, in a form that crosses the thread boundary (a ToolError keeps its code and options).
 */
export default async function runCpuTask(task: CpuTask): Promise<CpuTaskOutcome> {
  if (!tools.has(task.toolId)) tools.set(task.toolId, loadCpuTool(task.toolId));
  const tool = tools.get(task.toolId);
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
