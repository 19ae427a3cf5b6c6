// MCP Tasks on the server: a `tools/call` that becomes a task, in each era's way. The task
// methods themselves are in task-handlers.ts.
import {
  type CallToolRequest,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  ProtocolError,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type InputResponse,
  type KeyedInputRequest,
  taskSupportOf,
} from '@toolsys/core-tool-registry';
import type { ProtocolTask, TaskService } from '@toolsys/tasks';
import { type Ask, runInRounds } from './input-rounds.js';
import { canAnswerAny, legacyRequestInput } from './legacy-input.js';
import { roundOptions, type ToolCallSetup } from './tool-call-handler.js';

/** The 2026-07-28 Tasks extension's identifier (`capabilities.extensions`). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** JSON-RPC: the request needs a client capability the client did not declare. */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** JSON-RPC: method not found (what the 2025-11-25 spec answers a refused task augmentation with). */
const METHOD_NOT_FOUND = -32601;
/** JSON-RPC: invalid params. */
const INVALID_PARAMS = -32602;
/** JSON-RPC: internal error. */
const INTERNAL_ERROR = -32603;

/** The `data` of a -32021 error: the extension the client must declare. */
const REQUIRED_TASKS = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

/**
 * Whether a 2026-07-28 request's client declared the Tasks extension: in this request's
 * envelope (`_meta`), where a client may also opt in for one call.
 */
export function takesTasks(ctx: ServerContext, fallback?: ClientCapabilities): boolean {
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  const capabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? fallback) as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** The error of a task method called by a 2026-07-28 client that did not declare the extension. */
export function tasksNotNegotiated(method: string): ProtocolError {
  return new ProtocolError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `${method} belongs to the Tasks extension: declare "${TASKS_EXTENSION}" in the client capabilities (capabilities.extensions) to use it.`,
    REQUIRED_TASKS,
  );
}

/**
 * A task service's refusal as the protocol's error: the caller's to fix (unknown task, a
 * question it does not wait on, too many tasks) is invalid params, a store that does not
 * answer an internal error.
 */
export async function asProtocolError(error: unknown): Promise<unknown> {
  const { isTaskError, jsonRpcCodeOf } = await import('@toolsys/tasks');
  if (!isTaskError(error)) return error;
  const code = jsonRpcCodeOf(error);
  return new ProtocolError(
    code === INVALID_PARAMS ? INVALID_PARAMS : INTERNAL_ERROR,
    error.message,
    {
      reason: error.code,
    },
  );
}

/**
 * Starts the call as a task when this request asks for one, or when the era lets the server
 * decide and the tool may run as one; resolves with the result that names the task, or with
 * undefined for a plain call. Over 2025-11-25 the client asks (`params.task`); a tool that
 * forbids tasks, or requires one of a client that did not ask, is refused with -32601. Over
 * 2026-07-28 the server decides: a tool that may run as a task becomes one when the client
 * declared the extension; a tool that requires one is refused with -32021 otherwise.
 */
export async function startTaskIfAsked(
  setup: ToolCallSetup,
  toolId: string,
  args: unknown,
  request: CallToolRequest,
  ctx: ServerContext,
): Promise<Record<string, unknown> | undefined> {
  const { host, principal } = setup;
  const tool = host.deployment.registry.get(toolId, principal);
  // An unknown tool is answered as a plain call (NOT_FOUND with suggestions).
  if (tool === undefined) return undefined;
  const support = taskSupportOf(tool);
  const listed = request.params.name;
  let ttlMs: number | undefined;
  if (setup.era === 'legacy') {
    const asked = (request.params as { task?: unknown }).task;
    if (asked === undefined || asked === null) {
      if (support !== 'required') return undefined;
      throw new ProtocolError(
        METHOD_NOT_FOUND,
        `${listed} runs only as a task: call it with "task": {} in the request params (MCP Tasks), then read the result with tasks/result.`,
      );
    }
    if (support === 'forbidden') {
      throw new ProtocolError(
        METHOD_NOT_FOUND,
        `${listed} does not run as a task: call it without "task".`,
      );
    }
    const ttl = (asked as { ttl?: unknown }).ttl;
    if (typeof ttl === 'number') ttlMs = ttl;
  } else {
    // A 2025-era `task` hint on a tool that forbids tasks is tolerated and ignored.
    if (support === 'forbidden') return undefined;
    if (!takesTasks(ctx, setup.client().capabilities)) {
      if (support !== 'required') return undefined;
      throw new ProtocolError(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        `${listed} runs only as a task: declare "${TASKS_EXTENSION}" in the client capabilities (capabilities.extensions), then poll it with tasks/get.`,
        REQUIRED_TASKS,
      );
    }
  }
  // The questions the call needs answered before its long work starts.
  let answers: Record<string, InputResponse> | undefined;
  const questions = tool.metadata.questionsBeforeTask;
  if (questions !== undefined && setup.era === 'modern') {
    const round = await runInRounds(roundOptions(setup, ctx, toolId, args), (ask) =>
      answersOf(questions, (question) => askInRound(ask, question)),
    );
    if ('inputRequired' in round) return round.inputRequired as Record<string, unknown>;
    answers = round.done;
  } else if (questions !== undefined && canAnswerAny(setup.client().capabilities)) {
    const ask = legacyRequestInput(ctx, setup.client().capabilities);
    answers = await answersOf(questions, (question) => ask(question), { unansweredToo: true });
  }
  const service = await host.tasks.service();
  let task: ProtocolTask;
  try {
    task = await service.create(toolId, args, {
      principal,
      sessionId: setup.sessionId(ctx),
      ...(ttlMs !== undefined ? { ttlMs } : {}),
      ...(answers !== undefined ? { answers } : {}),
    });
  } catch (error) {
    throw await asProtocolError(error);
  }
  setup.onTaskStarted?.(service);
  if (setup.era === 'legacy') return { task };
  const { toProtocolTaskV2 } = await import('@toolsys/tasks');
  return { resultType: 'task', ...toProtocolTaskV2(task) };
}

/** Asks one question in an input-required round, under its own key. */
function askInRound(ask: Ask, question: KeyedInputRequest): Promise<unknown> {
  return ask(
    { method: question.method, params: { ...(question.params ?? {}) } } as Parameters<Ask>[0],
    question.key,
  );
}

/**
 * The answers to `questions`, asked together, by key. With `unansweredToo`, a question the
 * client did not answer (refused, failed) is left out, to be asked again while the task runs.
 */
async function answersOf(
  questions: readonly KeyedInputRequest[],
  ask: (question: KeyedInputRequest) => Promise<unknown>,
  options: { unansweredToo?: boolean } = {},
): Promise<Record<string, InputResponse>> {
  const settled = await Promise.allSettled(questions.map((question) => ask(question)));
  const answers: Record<string, InputResponse> = {};
  settled.forEach((outcome, index) => {
    const key = (questions[index] as KeyedInputRequest).key;
    if (outcome.status === 'fulfilled') answers[key] = outcome.value as InputResponse;
    else if (options.unansweredToo !== true) throw outcome.reason;
  });
  return answers;
}

/** What a server needs to tell a 2025-11-25 client of its tasks' status changes. */
export type TaskStartedListener = (service: TaskService) => void;
