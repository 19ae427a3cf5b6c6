import { ToolErrorCode } from '../contract/tool-error.js';
import { outcomeUnknownFailure } from '../contract/tool-failures.js';
import { isRetrySafe, type ToolAnnotations } from '../contract/tool-metadata.js';
import type { ToolFailure } from '../contract/tool-result.js';

/**
 * What to do after a failed attempt:
 * - `retry`: replay the same payload (after backoff);
 * - `terminal`: replaying cannot help (permission, sandbox, argument, not found …) or is not allowed;
 * - `outcome_unknown`: a timeout on a tool that is not retry-safe; the request may have taken
 *   effect, so it is never replayed and the model is told to check the state first.
 */
export type RetryDecision = 'retry' | 'terminal' | 'outcome_unknown';

const TERMINAL_CODES: ReadonlySet<ToolErrorCode> = new Set([
  ToolErrorCode.INVALID_ARGUMENT,
  ToolErrorCode.PERMISSION_DENIED,
  ToolErrorCode.NOT_FOUND,
  ToolErrorCode.UNSUPPORTED,
  ToolErrorCode.RATE_LIMITED,
  ToolErrorCode.CIRCUIT_OPEN,
  ToolErrorCode.UNKNOWN,
]);

/**
 * Decides whether a failed attempt is replayed. Branches on the code, never on message text:
 * permission, sandbox (PERMISSION_DENIED) and argument errors are terminal; TIMEOUT and
 * EXECUTION_FAILED (I/O, crashes, remote errors) are retryable, and only for retry-safe tools
 * (`readOnlyHint || idempotentHint`). A failure marked `retryable: false` is never replayed.
 */
export class RetryClassifier {
  /** Classifies one failed attempt. */
  classify(failure: ToolFailure, annotations: ToolAnnotations): RetryDecision {
    const { code, retryable } = failure.error;
    if (TERMINAL_CODES.has(code)) return 'terminal';
    const retrySafe = isRetrySafe(annotations);
    if (code === ToolErrorCode.TIMEOUT) {
      if (!retrySafe) return 'outcome_unknown';
      return retryable ? 'retry' : 'terminal';
    }
    if (!retryable || !retrySafe) return 'terminal';
    return 'retry';
  }

  /**
   * Rewrites a TIMEOUT of a tool that is not retry-safe so the model knows the request may have
   * taken effect and must not be replayed blindly.
   */
  outcomeUnknown(failure: ToolFailure, toolId: string): ToolFailure {
    return outcomeUnknownFailure(failure, toolId);
  }
}
