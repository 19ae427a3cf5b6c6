/**
 * The closed set of failure codes a tool call can end with. Engines branch on the code, never on
 * the message text.
 */
export const ToolErrorCode = {
  /** The arguments do not match the tool's schema. The model should fix them and retry. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** A gate, a policy or the user refused the call. Retrying the same call will not help. */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** The tool, or the thing the tool was asked about, does not exist. */
  NOT_FOUND: 'NOT_FOUND',
  /** The call did not finish within its time budget. */
  TIMEOUT: 'TIMEOUT',
  /** Too many calls of this tool in a short time. Wait for `retryAfterMs`. */
  RATE_LIMITED: 'RATE_LIMITED',
  /** The tool failed repeatedly and is paused until a probe succeeds. */
  CIRCUIT_OPEN: 'CIRCUIT_OPEN',
  /** The tool ran and failed (an I/O error, a crash, a remote error). */
  EXECUTION_FAILED: 'EXECUTION_FAILED',
  /** The tool cannot do this here (missing backend, unsupported platform or option). */
  UNSUPPORTED: 'UNSUPPORTED',
  /** A failure that fits no other code. */
  UNKNOWN: 'UNKNOWN',
} as const;

/** One of the nine {@link ToolErrorCode} values. */
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode];

/** Every error code, in declaration order. */
export const TOOL_ERROR_CODES: readonly ToolErrorCode[] = Object.values(ToolErrorCode);

/** Options carried by a {@link ToolError} into the failure result it becomes. */
export interface ToolErrorOptions {
  /** Dotted path of the argument at fault, e.g. `steps.2.args.path`. */
  field?: string;
  /** Overrides the code's default retryability. */
  retryable?: boolean;
  /** How long to wait before retrying, for RATE_LIMITED and CIRCUIT_OPEN. */
  retryAfterMs?: number;
  /** A next step more specific than the code's default hint. */
  hint?: string;
  /** Structured details the caller may use (never secrets). */
  details?: Record<string, unknown>;
  /** The underlying cause; kept for traces, never rendered to the model. */
  cause?: unknown;
}

/**
 * An error a tool handler (or a helper such as {@link ToolArguments}) may throw to end the call
 * with a specific code. The executor turns it into a failure result; it never escapes the executor.
 */
export class ToolError extends Error {
  /** The failure code the call ends with. */
  readonly code: ToolErrorCode;
  /** Options passed through to the failure result. */
  readonly options: ToolErrorOptions;

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.options = options;
  }
}

/** Whether a value is a {@link ToolError}, across module copies. */
export function isToolError(value: unknown): value is ToolError {
  return (
    value instanceof ToolError ||
    (value instanceof Error &&
      value.name === 'ToolError' &&
      typeof (value as Partial<ToolError>).code === 'string')
  );
}

/** Builds the INVALID_ARGUMENT error for a field, with a next step for the model. */
export function invalidArgument(field: string, problem: string, hint?: string): ToolError {
  return new ToolError(ToolErrorCode.INVALID_ARGUMENT, `${field}: ${problem}`, {
    field,
    ...(hint === undefined ? {} : { hint }),
  });
}
