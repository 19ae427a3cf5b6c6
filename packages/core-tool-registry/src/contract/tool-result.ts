import { ToolErrorCode, type ToolErrorOptions } from './tool-error.js';

/**
 * A file a tool wrote under the data directory for its caller to fetch rather than read inline:
 * a screenshot, a full snapshot past a budget, a dump, a long log ("reference over value"). The
 * result's text names it; an MCP server also links it as a resource the client can read, and
 * sends a small image inline.
 */
export interface ToolArtifact {
  /** Absolute path of the file (under the deployment's data directory). */
  readonly path: string;
  /** Its media type, e.g. `image/png` or `text/plain`. */
  readonly mimeType: string;
  /** One line on what it holds. */
  readonly description?: string;
  /**
   * Also send its contents in the result, not only a link: an `image` or `audio` block, else an
   * embedded `resource`, when the file is at most 1 MiB. For small media the caller must see
   * without reading resources; links only by default.
   */
  readonly inline?: boolean;
}

/** A successful call: the text the model reads, plus optional structured data and files. */
export interface ToolSuccess {
  readonly ok: true;
  /** The text the model reads. */
  readonly content: string;
  /** Structured output (becomes MCP `structuredContent`); must be JSON-serialisable. */
  readonly data?: unknown;
  /** Files the call wrote for the caller (become MCP resource links, small images inline). */
  readonly artifacts?: readonly ToolArtifact[];
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
export function successResult(
  content: string,
  options: { data?: unknown; artifacts?: readonly ToolArtifact[] } = {},
): ToolSuccess {
  return {
    ok: true,
    content,
    ...(options.data === undefined ? {} : { data: options.data }),
    ...(options.artifacts === undefined || options.artifacts.length === 0
      ? {}
      : { artifacts: options.artifacts }),
  };
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

/** Whether a value has the shape of a {@link ToolArtifact} (an absolute path and a media type). */
function isArtifact(value: unknown): value is ToolArtifact {
  if (typeof value !== 'object' || value === null) return false;
  const { path, mimeType, description } = value as Record<string, unknown>;
  return (
    typeof path === 'string' &&
    path.startsWith('/') &&
    typeof mimeType === 'string' &&
    (description === undefined || typeof description === 'string')
  );
}

/** Whether a value has the shape of a {@link ToolResult}. */
export function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as {
    ok?: unknown;
    content?: unknown;
    error?: unknown;
    artifacts?: unknown;
  };
  if (candidate.ok === true) {
    return (
      typeof candidate.content === 'string' &&
      (candidate.artifacts === undefined ||
        (Array.isArray(candidate.artifacts) && candidate.artifacts.every(isArtifact)))
    );
  }
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
