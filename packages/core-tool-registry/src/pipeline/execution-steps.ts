/**
 * The steps of a call that need no executor state: argument parsing, tool lookup, return
 * normalisation, event sinks and the signal facts handlers may ask about.
 */
import type { CallPrincipal, RegisteredTool, ToolContext, ToolEvent } from '../contract/tool.js';
import { ToolErrorCode } from '../contract/tool-error.js';
import type { ExecuteOptions } from '../contract/tool-executor.js';
import {
  argumentsNotJsonFailure,
  argumentsNotObjectFailure,
  invalidReturnFailure,
  unknownToolFailure,
} from '../contract/tool-failures.js';
import {
  isToolResult,
  successResult,
  type ToolFailure,
  type ToolResult,
} from '../contract/tool-result.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolSuggester } from '../registry/tool-suggester.js';
import { limitResult, type MAX_RESULT_CHARS } from './result-budget.js';

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
      return { ok: false, failure: argumentsNotJsonFailure((error as Error).message) };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, failure: argumentsNotObjectFailure(value) };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * Finds the tool `principal` sees under `id`, or returns NOT_FOUND naming at most three close ids
 * among those it sees: another principal's run-time tool answers exactly as an unknown id.
 */
export function lookupTool(
  registry: ToolRegistry,
  suggester: ToolSuggester,
  id: string,
  principal?: CallPrincipal,
): { ok: true; tool: RegisteredTool } | { ok: false; failure: ToolFailure } {
  const tool = typeof id === 'string' ? registry.get(id, principal) : undefined;
  if (tool) return { ok: true, tool };
  const suggestions = suggester.suggest(String(id), registry.ids(principal));
  return { ok: false, failure: unknownToolFailure(String(id), suggestions) };
}

/**
 * Normalises what a handler returned into a ToolResult, held within the one result budget
 * ({@link MAX_RESULT_CHARS} for text and structured data together).
 */
export function normaliseReturn(toolId: string, returned: unknown): ToolResult {
  if (typeof returned === 'string') return limitResult(successResult(returned));
  if (isToolResult(returned)) return limitResult(returned);
  return invalidReturnFailure(toolId, returned);
}

/**
 * Options for the calls a tool makes on behalf of its own call (batch steps, shortcuts): the same
 * session and principal, cancellation, event sink and confirmations.
 */
export function nestedCallOptions(
  context: ToolContext,
): Required<Pick<ExecuteOptions, 'signal' | 'sessionId' | 'onEvent' | 'confirm'>> &
  Pick<ExecuteOptions, 'principal' | 'requestInput'> {
  const { requestInput } = context;
  return {
    signal: context.signal,
    sessionId: context.sessionId,
    ...(context.principal ? { principal: context.principal } : {}),
    onEvent: (event) => context.emit(event),
    confirm: (request) => context.confirm(request),
    ...(requestInput ? { requestInput: (request) => requestInput(request) } : {}),
  };
}

/**
 * What the breaker is told of an attempt. A tool that only computes on its input (read-only, in a
 * closed world, such as an expression evaluator) and ran out of time did so because of that caller's input,
 * not because the tool is broken: the breaker, shared by every caller, is not told of a failure.
 */
export function breakerOutcome(tool: RegisteredTool, result: ToolResult): ToolResult {
  if (result.ok || result.error.code !== ToolErrorCode.TIMEOUT) return result;
  const { readOnlyHint, openWorldHint } = tool.metadata.annotations;
  if (!readOnlyHint || openWorldHint) return result;
  return {
    ok: false,
    error: { ...result.error, details: { ...result.error.details, causedByInput: true } },
  };
}
