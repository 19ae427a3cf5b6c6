import { describe, expect, it } from 'vitest';
import { ToolErrorCode } from '../contract/tool-error.js';
import { type ToolAnnotations, ToolHints } from '../contract/tool-metadata.js';
import { failureResult, renderResult } from '../contract/tool-result.js';
import { RetryClassifier } from './retry-classifier.js';

const readOnly = ToolHints.readOnly;
const idempotent: ToolAnnotations = { ...ToolHints.destructive, idempotentHint: true };
const mutating: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
  sensitiveAction: true,
};
const classifier = new RetryClassifier();

describe('RetryClassifier', () => {
  it.each([
    ToolErrorCode.PERMISSION_DENIED,
    ToolErrorCode.INVALID_ARGUMENT,
    ToolErrorCode.NOT_FOUND,
    ToolErrorCode.UNSUPPORTED,
    ToolErrorCode.RATE_LIMITED,
    ToolErrorCode.CIRCUIT_OPEN,
  ])('%s is terminal even for a read-only tool', (code) => {
    expect(classifier.classify(failureResult(code, 'x'), readOnly)).toBe('terminal');
  });

  it('a sandbox refusal (PERMISSION_DENIED) is terminal', () => {
    const sandbox = failureResult(ToolErrorCode.PERMISSION_DENIED, 'path escapes the workspace');
    expect(classifier.classify(sandbox, idempotent)).toBe('terminal');
  });

  it('TIMEOUT and EXECUTION_FAILED are retried for read-only and idempotent tools', () => {
    for (const annotations of [readOnly, idempotent]) {
      expect(classifier.classify(failureResult(ToolErrorCode.TIMEOUT, 'x'), annotations)).toBe(
        'retry',
      );
      expect(
        classifier.classify(failureResult(ToolErrorCode.EXECUTION_FAILED, 'EIO'), annotations),
      ).toBe('retry');
    }
  });

  it('an execution error of a tool that is not retry-safe is terminal', () => {
    expect(classifier.classify(failureResult(ToolErrorCode.EXECUTION_FAILED, 'x'), mutating)).toBe(
      'terminal',
    );
  });

  it('a TIMEOUT of a tool that is not retry-safe is outcome_unknown', () => {
    expect(classifier.classify(failureResult(ToolErrorCode.TIMEOUT, 'x'), mutating)).toBe(
      'outcome_unknown',
    );
  });

  it('a failure marked not retryable is never replayed', () => {
    const cancelled = failureResult(ToolErrorCode.EXECUTION_FAILED, 'cancelled', {
      retryable: false,
    });
    expect(classifier.classify(cancelled, readOnly)).toBe('terminal');
  });

  it('outcomeUnknown tells the model to check state and not replay', () => {
    const rewritten = classifier.outcomeUnknown(
      failureResult(
        ToolErrorCode.TIMEOUT,
        'http_request did not finish within 90 s and was stopped.',
      ),
      'http_request',
    );
    expect(rewritten.error.retryable).toBe(false);
    expect(rewritten.error.details).toEqual({ outcomeUnknown: true });
    expect(renderResult(rewritten)).toBe(
      'Error: [TIMEOUT] http_request did not finish within 90 s and was stopped. The outcome is unknown: http_request changes state and may have completed before the time ran out, so it was not retried.\nNext: Check the current state (read it back) before calling http_request again; do not replay it blindly.',
    );
  });

  it("outcomeUnknown keeps the sentence before the output block and the tool's own step after the check", () => {
    const block =
      '--- stdout (7 bytes) ---\n<untrusted-terminal-content>\nbefore\n</untrusted-terminal-content>';
    const rewritten = classifier.outcomeUnknown(
      failureResult(
        ToolErrorCode.TIMEOUT,
        `command timed out after 1.0 s; its process tree was killed.\n${block}`,
        { hint: 'Raise timeoutMs or run a smaller step.', details: { exitCode: null } },
      ),
      'shell_execute',
    );
    expect(renderResult(rewritten)).toBe(
      `Error: [TIMEOUT] command timed out after 1.0 s; its process tree was killed. The outcome is unknown: shell_execute changes state and may have completed before the time ran out, so it was not retried.\n${block}\nNext: Check the current state (read it back) before calling shell_execute again; do not replay it blindly. Raise timeoutMs or run a smaller step.`,
    );
    expect(rewritten.error.details).toEqual({ exitCode: null, outcomeUnknown: true });
  });
});
