import { ToolErrorCode, type ToolErrorOptions } from './tool-error.js';

/** A successful call: the text the model reads, plus optional structured data. */
export interface ToolSuccess {
  readonly ok: true;
  /** The text the model reads. */
  readonly content: string;
  /** Structured output (becomes MCP `structuredContent`); must be JSON-serialisable. */
  readonly data?: unknown;
}

/** The structured part of a failed call. */
export interface ToolFailureError {
  readonly code: ToolErrorCode;
  /** What failed, written for the model. */
  readonly message: string;
  /** Dotted path of the argument at fault. */
  readonly field?: string;
  /** Whether retrying the same call may succeed. */
  readonly retryable: boolean;
  /** How long to wait before a retry can succeed. */
  readonly retryAfterMs?: number;
  /** The next step for the model. */
  readonly hint: string;
  /** Structured details (never secrets). */
  readonly details?: Record<string, unknown>;
}

/** A failed call. */
export interface ToolFailure {
  readonly ok: false;
  readonly error: ToolFailureError;
}

/** What every tool call returns: a success or a failure with a {@link ToolErrorCode}. */
export type ToolResult = ToolSuccess | ToolFailure;

const DEFAULT_HINTS: Record<ToolErrorCode, string> = {
  INVALID_ARGUMENT: 'Fix the arguments and retry.',
  PERMISSION_DENIED: 'Change approach; do not retry this call.',
  NOT_FOUND: 'Check the name or path; list what exists before retrying.',
  TIMEOUT: 'The call ran out of time; retry with a smaller request or a longer timeout.',
  RATE_LIMITED: 'Too many calls; wait before calling this tool again.',
  CIRCUIT_OPEN: 'The tool is failing repeatedly; do not retry immediately, use another approach.',
  EXECUTION_FAILED: 'The tool failed while running; read the message, adjust and retry once.',
  UNSUPPORTED: 'This is not available here; use another tool or option.',
  UNKNOWN: 'An unexpected failure; retry once, then change approach.',
};

const DEFAULT_RETRYABLE: Record<ToolErrorCode, boolean> = {
  INVALID_ARGUMENT: false,
  PERMISSION_DENIED: false,
  NOT_FOUND: false,
  TIMEOUT: true,
  RATE_LIMITED: true,
  CIRCUIT_OPEN: true,
  EXECUTION_FAILED: true,
  UNSUPPORTED: false,
  UNKNOWN: false,
};

/** The default next-step hint for a code. */
export function defaultHint(code: ToolErrorCode): string {
  return DEFAULT_HINTS[code];
}

/** Whether a code is retryable by default. */
export function isRetryableByDefault(code: ToolErrorCode): boolean {
  return DEFAULT_RETRYABLE[code];
}

/** Builds a successful result. */
export function successResult(content: string, options: { data?: unknown } = {}): ToolSuccess {
  return options.data === undefined
    ? { ok: true, content }
    : { ok: true, content, data: options.data };
}

/** Builds a failed result; the hint and retryability default from the code. */
export function failureResult(
  code: ToolErrorCode,
  message: string,
  options: Omit<ToolErrorOptions, 'cause'> = {},
): ToolFailure {
  const error: {
    -readonly [K in keyof ToolFailureError]: ToolFailureError[K];
  } = {
    code,
    message,
    retryable: options.retryable ?? DEFAULT_RETRYABLE[code],
    hint: options.hint ?? DEFAULT_HINTS[code],
  };
  if (options.field !== undefined) error.field = options.field;
  if (options.retryAfterMs !== undefined)
    error.retryAfterMs = Math.max(0, Math.ceil(options.retryAfterMs));
  if (options.details !== undefined) error.details = options.details;
  return { ok: false, error };
}

/**
 * Renders a result to the string protocol engines parse: the content on success, and on failure
 * `Error: [CODE] message` followed by the field, the retry delay and the next step.
 */
export function renderResult(result: ToolResult): string {
  if (result.ok) return result.content;
  const { code, message, field, retryAfterMs, hint } = result.error;
  const lines = [`Error: [${code}] ${message}`];
  if (field !== undefined && !message.includes(field)) lines.push(`Field: ${field}`);
  if (retryAfterMs !== undefined) lines.push(`Retry after: ${formatDelay(retryAfterMs)}`);
  lines.push(`Next: ${hint}`);
  return lines.join('\n');
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** Whether a value has the shape of a {@link ToolResult}. */
export function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { ok?: unknown; content?: unknown; error?: unknown };
  if (candidate.ok === true) return typeof candidate.content === 'string';
  if (candidate.ok === false) {
    const error = candidate.error as { code?: unknown; message?: unknown } | undefined;
    return (
      typeof error === 'object' &&
      error !== null &&
      typeof error.message === 'string' &&
      typeof error.code === 'string' &&
      error.code in ToolErrorCode
    );
  }
  return false;
}
