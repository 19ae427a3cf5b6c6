/**
 * Every failure result the kernel itself builds: unknown tools, bad arguments, refusals of the
 * gates and policies, time limits, cancellations, crashes. A handler builds its own failures with
 * `failureResult`; the texts here are what the model reads when the pipeline answers for a tool.
 */
import type { OpenCircuitView } from '../policies/circuit-breaker.js';
import { describeType } from './tool-arguments.js';
import { isToolError, ToolErrorCode } from './tool-error.js';
import { defaultHint, failureResult, type ToolFailure } from './tool-result.js';

const MAX_MESSAGE_LENGTH = 2_000;
const JSON_OBJECT_HINT = 'Send the arguments as a JSON object, e.g. {"path": "notes.txt"}.';

/**
 * Turns anything a handler threw into a failure result: the message only, never the stack. A
 * throw that is not a {@link ToolError} is a crash, not an answer of the tool's:
 * `details.crashed` says so (a task that crashed has failed, see `@toolsys/tasks`).
 */
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
    { details: { crashed: true } },
  );
}

/** The failure for a call the caller cancelled (or the reason it was aborted with, if a ToolError). */
export function cancelledFailure(signal: AbortSignal): ToolFailure {
  const reason = signal.reason;
  if (isToolError(reason)) return failureFromThrown(reason);
  return failureResult(ToolErrorCode.EXECUTION_FAILED, 'The call was cancelled by the caller.', {
    retryable: false,
    hint: 'The caller cancelled this call; do not retry unless asked to.',
    details: { cancelled: true },
  });
}

/** NOT_FOUND for an unknown tool id, naming the close ids (at most three) to call instead. */
export function unknownToolFailure(id: string, suggestions: readonly string[]): ToolFailure {
  const message =
    suggestions.length > 0
      ? `Unknown tool "${id}". Did you mean: ${suggestions.join(', ')}?`
      : `Unknown tool "${id}".`;
  return failureResult(ToolErrorCode.NOT_FOUND, message, {
    hint:
      suggestions.length > 0
        ? `Call one of: ${suggestions.join(', ')}.`
        : 'Check the tool catalog for the right id.',
    details: { toolId: id, suggestions: [...suggestions] },
  });
}

/** UNSUPPORTED for a tool that exists but is off here: why, and how to turn it on. */
export function offToolFailure(tool: {
  readonly id: string;
  readonly owner: string;
  readonly reason: string;
  readonly hint: string;
}): ToolFailure {
  return failureResult(
    ToolErrorCode.UNSUPPORTED,
    `${tool.id} is off in this deployment (${tool.owner}): ${tool.reason}`,
    {
      hint: `${tool.hint} Until then, use another tool.`,
      details: { toolId: tool.id, owner: tool.owner, off: true },
    },
  );
}

/** INVALID_ARGUMENT for arguments sent as a string that is not JSON (`problem`: the parser's words). */
export function argumentsNotJsonFailure(problem: string): ToolFailure {
  return failureResult(ToolErrorCode.INVALID_ARGUMENT, `arguments are not valid JSON: ${problem}`, {
    hint: JSON_OBJECT_HINT,
  });
}

/** INVALID_ARGUMENT for arguments that are JSON but not an object. */
export function argumentsNotObjectFailure(received: unknown): ToolFailure {
  return failureResult(
    ToolErrorCode.INVALID_ARGUMENT,
    `arguments must be a JSON object, received ${describeType(received)}`,
    { hint: JSON_OBJECT_HINT },
  );
}

/** INVALID_ARGUMENT for arguments over one of a tool's size limits, before any parsing. */
export function argumentLimitFailure(toolId: string, problem: string, hint: string): ToolFailure {
  return failureResult(ToolErrorCode.INVALID_ARGUMENT, `arguments: ${problem}`, {
    retryable: false,
    hint,
    details: { toolId },
  });
}

/** EXECUTION_FAILED for a handler that returned neither text nor a ToolResult. */
export function invalidReturnFailure(toolId: string, returned: unknown): ToolFailure {
  return failureResult(
    ToolErrorCode.EXECUTION_FAILED,
    `${toolId} returned an invalid result (${describeType(returned)}).`,
    { retryable: false, hint: 'This is a defect in the tool; use another tool.' },
  );
}

/** PERMISSION_DENIED with the risk gate's reason and next step. */
export function permissionDeniedFailure(
  reason: string,
  hint: string | undefined,
  details?: Record<string, unknown>,
): ToolFailure {
  return failureResult(ToolErrorCode.PERMISSION_DENIED, reason, {
    ...(hint !== undefined ? { hint } : {}),
    ...(details !== undefined ? { details } : {}),
  });
}

/** UNSUPPORTED for a call the environment gate blocked: the rule's message, hint and observation. */
export function environmentBlockedFailure(
  toolId: string,
  rule: { readonly signal: string; readonly message: string; readonly hint: string },
  observed: { readonly value: unknown; readonly ageMs: number },
): ToolFailure {
  return failureResult(ToolErrorCode.UNSUPPORTED, `${toolId}: ${rule.message}`, {
    retryable: true,
    hint: rule.hint,
    details: { environment: { signal: rule.signal, value: observed.value, ageMs: observed.ageMs } },
  });
}

/**
 * The TIMEOUT failure of a call that ran out of time. The limit covers every attempt of the call
 * together; after more than one attempt the message states the real time spent and the attempts.
 */
export function timeoutFailure(
  toolId: string,
  timeoutMs: number,
  elapsedMs: number = timeoutMs,
  attempts = 1,
): ToolFailure {
  const spent = Math.max(elapsedMs, timeoutMs);
  if (attempts <= 1 && spent === timeoutMs) {
    return failureResult(
      ToolErrorCode.TIMEOUT,
      `${toolId} did not finish within ${formatDuration(timeoutMs)} and was stopped.`,
      { details: { timeoutMs } },
    );
  }
  return failureResult(
    ToolErrorCode.TIMEOUT,
    `${toolId} did not finish within ${formatDuration(timeoutMs)} and was stopped after ${formatDuration(spent)} over ${attempts} attempt${attempts === 1 ? '' : 's'}.`,
    { details: { timeoutMs, elapsedMs: spent, attempts } },
  );
}

/**
 * The TIMEOUT of a call that is not retry-safe, rewritten so the model knows the request may have
 * taken effect and must not be replayed blindly. The sentence saying so follows the message's
 * first line, before any block under it (a command's output), and the tool's own next step, when
 * it gave one, follows the check of the state.
 */
export function outcomeUnknownFailure(failure: ToolFailure, toolId: string): ToolFailure {
  const { message, hint } = failure.error;
  const lineEnd = message.indexOf('\n');
  const [first, block] =
    lineEnd === -1 ? [message, ''] : [message.slice(0, lineEnd), message.slice(lineEnd)];
  const ownStep = hint === defaultHint(ToolErrorCode.TIMEOUT) ? '' : ` ${hint}`;
  return failureResult(
    ToolErrorCode.TIMEOUT,
    `${first} The outcome is unknown: ${toolId} changes state and may have completed before the time ran out, so it was not retried.${block}`,
    {
      retryable: false,
      hint: `Check the current state (read it back) before calling ${toolId} again; do not replay it blindly.${ownStep}`,
      details: { ...failure.error.details, outcomeUnknown: true },
    },
  );
}

/**
 * The RATE_LIMITED failure of a call over its tool's quota: the caller's own, or with `shared` the
 * quota all callers of the tool share.
 */
export function rateLimitedFailure(
  toolId: string,
  ratePerMinute: number,
  retryAfterMs: number,
  options: { shared?: boolean } = {},
): ToolFailure {
  const scope = options.shared ? ' across all sessions' : '';
  return failureResult(
    ToolErrorCode.RATE_LIMITED,
    `${toolId} is limited to ${ratePerMinute} calls a minute${scope} and the quota is used up.`,
    {
      retryAfterMs,
      hint: `Wait ${formatDuration(retryAfterMs)} before calling ${toolId} again; avoid calling it in a loop.`,
      details: { ratePerMinute, ...(options.shared ? { shared: true } : {}) },
    },
  );
}

/**
 * The RATE_LIMITED failure of a principal's own quota (all its calls of every tool): whose quota,
 * and when to retry. Other principals are not limited by it.
 */
export function principalQuotaFailure(
  principalId: string,
  ratePerMinute: number,
  retryAfterMs: number,
): ToolFailure {
  return failureResult(
    ToolErrorCode.RATE_LIMITED,
    `The calls of principal "${principalId}" are limited to ${ratePerMinute} a minute (all tools together) and this quota is used up.`,
    {
      retryAfterMs,
      hint: `Wait ${formatDuration(retryAfterMs)} before calling any tool again; batch work into fewer calls.`,
      details: { quota: 'principal', principal: principalId, ratePerMinute },
    },
  );
}

/**
 * The CIRCUIT_OPEN failure a breaker returns when it refuses a call: the last error, the probe
 * countdown (`remainingMs`, 0 while a probe runs) and "do not retry immediately".
 */
export function circuitOpenFailure(
  toolId: string,
  circuit: OpenCircuitView,
  remainingMs: number,
): ToolFailure {
  const last = circuit.lastError
    ? `[${circuit.lastError.code}] ${circuit.lastError.message}`
    : 'unknown';
  const countdown =
    remainingMs > 0
      ? `The next probe is allowed in ${Math.ceil(remainingMs / 1000)} s.`
      : 'A probe call is running now.';
  return failureResult(
    ToolErrorCode.CIRCUIT_OPEN,
    `${toolId} is paused after ${circuit.failures} consecutive failures. Last error: ${last}. ${countdown}`,
    {
      retryAfterMs: remainingMs > 0 ? remainingMs : circuit.cooldownMs,
      hint: `Do not retry ${toolId} immediately; use another approach, or wait for the probe.`,
      details: { state: circuit.state, probeInMs: Math.max(0, Math.ceil(remainingMs)) },
    },
  );
}

/** INVALID_ARGUMENT for a batch whose steps or budget are malformed; no step has run. */
export function invalidBatchFailure(field: string, problem: string): ToolFailure {
  return failureResult(ToolErrorCode.INVALID_ARGUMENT, `${field}: ${problem}`, {
    field,
    hint: 'Fix the steps and send the batch again; no step has run.',
  });
}

/** TIMEOUT for a batch whose time budget ran out during step `index`. */
export function batchBudgetFailure(budgetMs: number, index: number): ToolFailure {
  return failureResult(
    ToolErrorCode.TIMEOUT,
    `The batch budget of ${Math.round(budgetMs / 100) / 10} s ran out during step ${index}.`,
    {
      retryable: false,
      hint: 'Send fewer steps per batch, or a larger budgetMs (at most 600000).',
      details: { budgetMs },
    },
  );
}

/** The failure of a batch the caller cancelled before step `index`. */
export function batchCancelledFailure(index: number): ToolFailure {
  return failureResult(
    ToolErrorCode.EXECUTION_FAILED,
    `The batch was cancelled before step ${index}.`,
    {
      retryable: false,
      hint: 'The caller cancelled this batch; do not retry unless asked to.',
      details: { cancelled: true },
    },
  );
}

function truncate(message: string): string {
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.ceil(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
