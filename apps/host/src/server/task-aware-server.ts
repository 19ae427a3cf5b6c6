// The SDK's server, taught one thing: over 2025-11-25 a `tools/call` may be answered with the
// task it started (`CreateTaskResult`, `{ task }`), which the SDK's 2025 result schema for
// `tools/call` does not take.
import {
  type JSONRPCRequest,
  type Result,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** Carries a task-creation answer past the SDK's `tools/call` result check. */
class TaskCreated {
  constructor(readonly result: Result) {}
}

/** Whether `result` is a 2025-11-25 CreateTaskResult: a task, and no tool content. */
function isCreateTaskResult(result: Result): boolean {
  const task = (result as { task?: unknown }).task;
  return (
    typeof task === 'object' &&
    task !== null &&
    typeof (task as { taskId?: unknown }).taskId === 'string' &&
    !('content' in result)
  );
}

/**
 * A {@link Server} whose `tools/call` handler may answer with a CreateTaskResult (MCP Tasks,
 * 2025-11-25). Every other result is checked by the SDK as before.
 */
export class TaskAwareServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const wrapped = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      if (isCreateTaskResult(result)) throw new TaskCreated(result);
      return result;
    });
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        if (error instanceof TaskCreated) return error.result;
        throw error;
      }
    };
  }
}
