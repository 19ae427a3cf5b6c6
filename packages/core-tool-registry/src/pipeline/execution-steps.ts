import type { ConfirmFunction, RegisteredTool, ToolContext, ToolEvent } from '../contract/tool.js';
import { describeType } from '../contract/tool-arguments.js';
import { isToolError, ToolErrorCode } from '../contract/tool-error.js';
import type { ExecuteOptions } from '../contract/tool-executor.js';
import {
  failureResult,
  isToolResult,
  successResult,
  type ToolFailure,
  type ToolResult,
} from '../contract/tool-result.js';
import type { ToolServices } from '../contract/tool-services.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolSuggester } from '../registry/tool-suggester.js';
import { limitResult, type MAX_RESULT_CHARS } from './result-budget.js';

const MAX_MESSAGE_LENGTH = 2_000;

/** The `emit` of contexts whose caller gave no event sink: events go nowhere. */
export const SILENT_EMIT: (event: ToolEvent) => void = () => {};

/** A context's `emit`: `onEvent` made unable to throw, or {@link SILENT_EMIT} without a sink. */
export function safeEmitter(
  onEvent: ((event: ToolEvent) => void) | undefined,
): (event: ToolEvent) => void {
  if (!onEvent) return SILENT_EMIT;
  return (event) => {
    try {
      onEvent(event);
    } catch {
      // A failing sink must not fail the tool.
    }
  };
}

/**
 * Whether anyone receives what a handler emits. False only for contexts the executors built
 * without an `onEvent` sink, so a handler can skip work that only feeds events (e.g. asking a
 * remote server for progress notifications). A spread context keeps the answer.
 */
export function hasEventSink(context: ToolContext): boolean {
  return context.emit !== SILENT_EMIT;
}

/**
 * Contexts that know when their signal can fire at the earliest implement this method: it returns
 * the milliseconds until then (0: at any moment, `Infinity`: never). Internal to the executors.
 */
export const ABORT_HORIZON: unique symbol = Symbol('toolsys.abortHorizon');

/**
 * Whether the call's signal may fire within the next `ms` milliseconds. False only when the
 * executor knows that no caller can cancel the call and its own time limit ends later: a handler
 * whose work is bounded by `ms` anyway (e.g. an SDK request whose own timeout cancels the remote
 * side) then need not hand the signal on, which saves making one per call. True for any other
 * context (including a spread copy), so the answer is always safe.
 */
export function mayAbortWithin(context: ToolContext, ms: number): boolean {
  const horizon = (context as { [ABORT_HORIZON]?: () => number })[ABORT_HORIZON];
  return typeof horizon !== 'function' || horizon.call(context) <= ms;
}

const ATTEMPT_SIGNALS = new WeakSet<AbortSignal>();

/** Marks a signal the executor made for one attempt (internal). */
export function markAttemptSignal(signal: AbortSignal): void {
  ATTEMPT_SIGNALS.add(signal);
}

/**
 * Whether a signal was made by the executor for a single attempt and is dropped when that attempt
 * ends: listeners left on it (some SDKs never remove theirs) cannot pile up across calls, so it may
 * be handed to such an SDK directly instead of through a per-request relay.
 */
export function isAttemptSignal(signal: AbortSignal): boolean {
  return ATTEMPT_SIGNALS.has(signal);
}

/** Accepts arguments as an object, a JSON string, or nothing; anything else is INVALID_ARGUMENT. */
export function parseRawArguments(
  rawArgs: unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; failure: ToolFailure } {
  let value = rawArgs;
  if (value === undefined || value === null || value === '') return { ok: true, value: {} };
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      return {
        ok: false,
        failure: failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `arguments are not valid JSON: ${(error as Error).message}`,
          { hint: 'Send the arguments as a JSON object, e.g. {"path": "notes.txt"}.' },
        ),
      };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      failure: failureResult(
        ToolErrorCode.INVALID_ARGUMENT,
        `arguments must be a JSON object, received ${describeType(value)}`,
        { hint: 'Send the arguments as a JSON object, e.g. {"path": "notes.txt"}.' },
      ),
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Finds a tool or returns NOT_FOUND naming at most three close ids. */
export function lookupTool(
  registry: ToolRegistry,
  suggester: ToolSuggester,
  id: string,
): { ok: true; tool: RegisteredTool } | { ok: false; failure: ToolFailure } {
  const tool = typeof id === 'string' ? registry.get(id) : undefined;
  if (tool) return { ok: true, tool };
  const suggestions = suggester.suggest(String(id), registry.ids());
  const message =
    suggestions.length > 0
      ? `Unknown tool "${String(id)}". Did you mean: ${suggestions.join(', ')}?`
      : `Unknown tool "${String(id)}".`;
  return {
    ok: false,
    failure: failureResult(ToolErrorCode.NOT_FOUND, message, {
      hint:
        suggestions.length > 0
          ? `Call one of: ${suggestions.join(', ')}.`
          : 'Check the tool catalog for the right id.',
      details: { toolId: String(id), suggestions },
    }),
  };
}

/** Turns anything a handler threw into a failure result: the message only, never the stack. */
export function failureFromThrown(thrown: unknown, signal?: AbortSignal): ToolFailure {
  if (isToolError(thrown)) {
    const { cause: _cause, ...options } = thrown.options;
    return failureResult(thrown.code, truncate(thrown.message), options);
  }
  if (signal?.aborted) return cancelledFailure(signal);
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return failureResult(
    ToolErrorCode.EXECUTION_FAILED,
    truncate(message || 'the tool failed without a message'),
  );
}

/** The failure for a call the caller cancelled. */
export function cancelledFailure(signal: AbortSignal): ToolFailure {
  const reason = signal.reason;
  if (isToolError(reason)) return failureFromThrown(reason);
  return failureResult(ToolErrorCode.EXECUTION_FAILED, 'The call was cancelled by the caller.', {
    retryable: false,
    hint: 'The caller cancelled this call; do not retry unless asked to.',
    details: { cancelled: true },
  });
}

function truncate(message: string): string {
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message;
}

/**
 * Normalises what a handler returned into a ToolResult, held within the one result budget
 * ({@link MAX_RESULT_CHARS} for text and structured data together).
 */
export function normaliseReturn(toolId: string, returned: unknown): ToolResult {
  if (typeof returned === 'string') return limitResult(successResult(returned));
  if (isToolResult(returned)) return limitResult(returned);
  return failureResult(
    ToolErrorCode.EXECUTION_FAILED,
    `${toolId} returned an invalid result (${describeType(returned)}).`,
    { retryable: false, hint: 'This is a defect in the tool; use another tool.' },
  );
}

/** Runs a handler and never throws. */
export async function invokeTool(
  tool: RegisteredTool,
  args: unknown,
  context: ToolContext,
): Promise<ToolResult> {
  if (context.signal.aborted) return cancelledFailure(context.signal);
  try {
    const returned = await tool.execute(args as Record<string, unknown>, context);
    return normaliseReturn(tool.id, returned);
  } catch (thrown) {
    return failureFromThrown(thrown, context.signal);
  }
}

/** Options for {@link createToolContext}. */
export interface ToolContextInit {
  tool: RegisteredTool;
  callId: string;
  sessionId: string;
  attempt: number;
  signal: AbortSignal;
  services: ToolServices;
  onEvent?: ((event: ToolEvent) => void) | undefined;
  confirm?: ConfirmFunction | undefined;
}

/** Builds the context handed to a handler. `emit` never throws; `confirm` denies without a UI. */
export function createToolContext(init: ToolContextInit): ToolContext {
  const { tool, callId, sessionId, attempt, signal, services, onEvent, confirm } = init;
  return {
    callId,
    sessionId,
    attempt,
    signal,
    services,
    emit: safeEmitter(onEvent),
    async confirm(request) {
      if (!confirm) return 'deny';
      try {
        return await confirm({ ...request, toolId: request.toolId ?? tool.id, sessionId }, signal);
      } catch {
        return 'deny';
      }
    },
  };
}

/**
 * Options for the calls a tool makes on behalf of its own call (batch steps, shortcuts): the same
 * session, cancellation, event sink and confirmations.
 */
export function nestedCallOptions(
  context: ToolContext,
): Required<Pick<ExecuteOptions, 'signal' | 'sessionId' | 'onEvent' | 'confirm'>> {
  return {
    signal: context.signal,
    sessionId: context.sessionId,
    onEvent: (event) => context.emit(event),
    confirm: (request) => context.confirm(request),
  };
}
