// The MCP Tasks methods of one server, in its era: `tasks/get`, `tasks/result`, `tasks/list`,
// `tasks/cancel` over 2025-11-25; the `io.modelcontextprotocol/tasks` extension's `tasks/get`,
// `tasks/update`, `tasks/cancel` over 2026-07-28 (where `tasks/result` and `tasks/list` do not
// exist). Every method sees only the caller's own tasks.
import {
  type ClientCapabilities,
  ProtocolError,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { InputResponse } from '@toolsys/core-tool-registry';
import { principalKey } from '@toolsys/core-tool-registry';
import type { TaskService, TaskView } from '@toolsys/tasks';
import { z } from 'zod';
import { canAnswerAny, legacyRequestInput } from './legacy-input.js';
import { asProtocolError, takesTasks, tasksNotNegotiated } from './task-calls.js';
import { callToolResultOf, type ToolCallSetup } from './tool-call-handler.js';

/** JSON-RPC: internal error (a task that could not produce a result). */
const INTERNAL_ERROR = -32603;
/** JSON-RPC: invalid params. */
const INVALID_PARAMS = -32602;
/** How often `tasks/result` looks for a question to pass on while it waits, in ms. */
const RESULT_CHECK_MS = 500;

// The params are checked in the handlers, after the extension gate: a client that did not
// declare the extension hears that first, whatever it sent.
const AnyParams = z.object({}).passthrough();
const TaskIdParams = z.object({ taskId: z.string().min(1).max(200) }).passthrough();
const UpdateParams = TaskIdParams.extend({
  inputResponses: z.record(z.string(), z.record(z.string(), z.unknown())),
});
const ListParams = z.object({ cursor: z.string().max(2000).optional() }).passthrough();

/** `params` checked against `schema`; a mismatch is the protocol's invalid params. */
function paramsOf<T>(schema: z.ZodType<T>, params: unknown, method: string): T {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProtocolError(
    INVALID_PARAMS,
    `${method}: ${issue?.path.join('.') || 'params'} ${issue?.message ?? 'is invalid'}; send ${method === 'tasks/update' ? '{"taskId": "…", "inputResponses": {"<id>": {…}}}' : method === 'tasks/list' ? '{"cursor"?: "…"}' : '{"taskId": "…"}'}.`,
  );
}

/** Registers the task methods of `server`, as its era (`setup.era`) has them. */
export function registerTaskHandlers(server: Server, setup: ToolCallSetup): void {
  const { host, principal } = setup;
  /** The service, for a task method: a 2026-07-28 client must have declared the extension. */
  const serviceFor = async (method: string, ctx: ServerContext): Promise<TaskService> => {
    if (setup.era === 'modern' && !takesTasks(ctx, setup.client().capabilities)) {
      throw tasksNotNegotiated(method);
    }
    return host.tasks.service();
  };
  const refused = async (error: unknown): Promise<never> => {
    throw await asProtocolError(error);
  };

  server.setRequestHandler('tasks/get', { params: AnyParams }, async (params, ctx) => {
    const service = await serviceFor('tasks/get', ctx);
    const { taskId } = paramsOf(TaskIdParams, params, 'tasks/get');
    const view = await service.get(taskId, principal).catch(refused);
    if (setup.era === 'legacy') return { ...view.task };
    return detailedTask(setup, view);
  });

  server.setRequestHandler('tasks/cancel', { params: AnyParams }, async (params, ctx) => {
    const service = await serviceFor('tasks/cancel', ctx);
    const { taskId } = paramsOf(TaskIdParams, params, 'tasks/cancel');
    const { TaskErrorCode, isTaskError } = await import('@toolsys/tasks');
    try {
      const task = await service.cancel(taskId, principal);
      return setup.era === 'legacy' ? { ...task } : {};
    } catch (error) {
      // The extension's cancel is idempotent: a task that has ended is acknowledged too.
      if (
        setup.era === 'modern' &&
        isTaskError(error) &&
        error.code === TaskErrorCode.ALREADY_TERMINAL
      ) {
        return {};
      }
      return refused(error);
    }
  });

  if (setup.era === 'modern') {
    server.setRequestHandler('tasks/update', { params: AnyParams }, async (params, ctx) => {
      const service = await serviceFor('tasks/update', ctx);
      // The SDK lifts a request's `inputResponses` out of its params (as for a tools/call round)
      // and sets aside entries that are not bare results: those are refused, not ignored.
      const { inputResponses: lifted, droppedInputResponseKeys: dropped } = ctx.mcpReq as {
        inputResponses?: unknown;
        droppedInputResponseKeys?: readonly string[];
      };
      if (dropped !== undefined && dropped.length > 0) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `tasks/update: inputResponses ${dropped
            .slice(0, 3)
            .map((key) => JSON.stringify(key.slice(0, 64)))
            .join(
              ', ',
            )} must each be the bare answer (an elicitation, sampling or roots result object), not wrapped in {method, result}.`,
        );
      }
      const { taskId, inputResponses } = paramsOf(
        UpdateParams,
        { ...(params as object), ...(lifted !== undefined ? { inputResponses: lifted } : {}) },
        'tasks/update',
      );
      await service
        .answerInputs(taskId, inputResponses as Record<string, InputResponse>, principal)
        .catch(refused);
      return {};
    });
    return;
  }

  server.setRequestHandler('tasks/list', { params: AnyParams }, async (params, ctx) => {
    const service = await serviceFor('tasks/list', ctx);
    const { cursor } = paramsOf(ListParams, params, 'tasks/list');
    const page = await service
      .list(principal, cursor !== undefined ? { cursor } : {})
      .catch(refused);
    return {
      tasks: page.tasks.map((task) => ({ ...task })),
      ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    };
  });

  server.setRequestHandler('tasks/result', { params: AnyParams }, async (params, ctx) => {
    const service = await serviceFor('tasks/result', ctx);
    const { taskId } = paramsOf(TaskIdParams, params, 'tasks/result');
    const capabilities = setup.client().capabilities;
    const { task, result } = await waitForResult(service, taskId, setup, ctx, capabilities).catch(
      refused,
    );
    const answer = await callToolResultOf(
      setup,
      (await service.get(taskId, principal)).toolId,
      result,
      capabilities,
    );
    return {
      ...answer,
      _meta: { ...answer._meta, [RELATED_TASK_META_KEY]: { taskId: task.taskId } },
    };
  });
}

/**
 * Tells this 2025-11-25 connection of its principal's task status changes
 * (`notifications/tasks/status`), from the first task it starts. Returns the stop function.
 */
export function taskStatusNotifier(
  server: Server,
  setup: Pick<ToolCallSetup, 'principal'>,
): { started: (service: TaskService) => void; stop: () => void } {
  let stop: (() => void) | undefined;
  const owner = principalKey(setup.principal);
  return {
    started(service) {
      stop ??= service.onStatus((event) => {
        if (event.owner !== owner) return;
        server
          .notification({ method: 'notifications/tasks/status', params: { ...event.task } })
          .catch(() => {});
      });
    },
    stop() {
      stop?.();
      stop = undefined;
    },
  };
}

/**
 * Waits for the task's result as `tasks/result` does; meanwhile every question the task asks
 * goes to this client as a real request when it can answer it (elicitation, sampling, roots),
 * and its answer lets the task go on.
 */
async function waitForResult(
  service: TaskService,
  taskId: string,
  setup: ToolCallSetup,
  ctx: ServerContext,
  capabilities: ClientCapabilities | undefined,
): ReturnType<TaskService['result']> {
  const { principal } = setup;
  const ask = canAnswerAny(capabilities) ? legacyRequestInput(ctx, capabilities) : undefined;
  const passedOn = new Set<string>();
  for (;;) {
    const view = await service.get(taskId, principal);
    for (const question of view.inputRequests ?? []) {
      if (ask === undefined || passedOn.has(question.requestId)) continue;
      passedOn.add(question.requestId);
      ask(question.request)
        .then((answer) => service.answerInputs(taskId, { [question.requestId]: answer }, principal))
        .catch(() => {
          // Unanswered (the client refused or went away): the task keeps waiting.
        });
    }
    const check = AbortSignal.any([ctx.mcpReq.signal, AbortSignal.timeout(RESULT_CHECK_MS)]);
    try {
      return await service.result(taskId, principal, { signal: check });
    } catch (error) {
      if (ctx.mcpReq.signal.aborted || !check.aborted) throw error;
    }
  }
}

/**
 * A task as the 2026-07-28 extension's `tasks/get` shows it (DetailedTask): the questions it
 * waits on by id, the tool's result once completed (a tool error is a completed task whose
 * result says so), the error of a task that could not produce one.
 */
async function detailedTask(
  setup: ToolCallSetup,
  view: TaskView,
): Promise<Record<string, unknown>> {
  const { toProtocolTaskV2 } = await import('@toolsys/tasks');
  const detailed: Record<string, unknown> = { ...toProtocolTaskV2(view.task) };
  const status = view.task.status;
  if (status === 'input_required' && view.inputRequests !== undefined) {
    detailed.inputRequests = Object.fromEntries(
      view.inputRequests.map(({ requestId, request }) => [
        requestId,
        { method: request.method, params: { ...(request.params ?? {}) } },
      ]),
    );
  }
  if (status === 'completed' && view.result !== undefined) {
    detailed.result = await callToolResultOf(
      setup,
      view.toolId,
      view.result,
      setup.client().capabilities,
    );
  }
  if (status === 'failed') {
    detailed.error = {
      code: INTERNAL_ERROR,
      message:
        view.task.statusMessage ??
        'The task failed before it produced a result; run the call again.',
    };
  }
  return detailed;
}
