import { describe, expect, it } from 'vitest';
import { TOOL_ERROR_CODES, ToolErrorCode } from './tool-error.js';
import { failureResult, isToolResult, renderResult, successResult } from './tool-result.js';

describe('renderResult', () => {
  it('renders a success as its content', () => {
    expect(renderResult(successResult('14', { data: { value: 14 } }))).toBe('14');
  });

  const expected: Record<ToolErrorCode, string> = {
    INVALID_ARGUMENT: 'Error: [INVALID_ARGUMENT] boom\nNext: Fix the arguments and retry.',
    PERMISSION_DENIED:
      'Error: [PERMISSION_DENIED] boom\nNext: Change approach; do not retry this call.',
    NOT_FOUND:
      'Error: [NOT_FOUND] boom\nNext: Check the name or path; list what exists before retrying.',
    TIMEOUT:
      'Error: [TIMEOUT] boom\nNext: The call ran out of time; retry with a smaller request or a longer timeout.',
    RATE_LIMITED:
      'Error: [RATE_LIMITED] boom\nNext: Too many calls; wait before calling this tool again.',
    CIRCUIT_OPEN:
      'Error: [CIRCUIT_OPEN] boom\nNext: The tool is failing repeatedly; do not retry immediately, use another approach.',
    EXECUTION_FAILED:
      'Error: [EXECUTION_FAILED] boom\nNext: The tool failed while running; read the message, adjust and retry once.',
    UNSUPPORTED:
      'Error: [UNSUPPORTED] boom\nNext: This is not available here; use another tool or option.',
    UNKNOWN:
      'Error: [UNKNOWN] boom\nNext: An unexpected failure; retry once, then change approach.',
  };

  it.each(TOOL_ERROR_CODES)('renders %s with the Error: prefix and its fix hint', (code) => {
    expect(renderResult(failureResult(code, 'boom'))).toBe(expected[code]);
  });

  it('names the field when the message does not', () => {
    const result = failureResult(ToolErrorCode.INVALID_ARGUMENT, 'expected string', {
      field: 'steps.2.args.path',
    });
    expect(renderResult(result)).toBe(
      'Error: [INVALID_ARGUMENT] expected string\nField: steps.2.args.path\nNext: Fix the arguments and retry.',
    );
  });

  it('shows the retry delay for rate limits', () => {
    const result = failureResult(ToolErrorCode.RATE_LIMITED, 'limit reached', {
      retryAfterMs: 1500.2,
    });
    expect(result.error.retryAfterMs).toBe(1501);
    expect(renderResult(result)).toContain('Retry after: 1.5 s');
  });

  it('uses a custom hint over the default', () => {
    const result = failureResult(ToolErrorCode.NOT_FOUND, 'no such file', {
      hint: 'Call list_files first.',
    });
    expect(renderResult(result)).toBe(
      'Error: [NOT_FOUND] no such file\nNext: Call list_files first.',
    );
  });
});

describe('failureResult', () => {
  it('carries structured fields beside the text', () => {
    const result = failureResult(ToolErrorCode.RATE_LIMITED, 'slow down', {
      retryAfterMs: 2000,
      details: { toolId: 'web_fetch' },
    });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'RATE_LIMITED',
        message: 'slow down',
        retryable: true,
        retryAfterMs: 2000,
        hint: 'Too many calls; wait before calling this tool again.',
        details: { toolId: 'web_fetch' },
      },
    });
  });

  it('defaults retryability per code and lets the caller override it', () => {
    expect(failureResult('PERMISSION_DENIED', 'no').error.retryable).toBe(false);
    expect(failureResult('TIMEOUT', 'slow').error.retryable).toBe(true);
    expect(failureResult('TIMEOUT', 'slow', { retryable: false }).error.retryable).toBe(false);
  });
});

describe('isToolResult', () => {
  it('recognises results and rejects look-alikes', () => {
    expect(isToolResult(successResult('x'))).toBe(true);
    expect(isToolResult(failureResult('UNKNOWN', 'x'))).toBe(true);
    expect(isToolResult({ ok: true })).toBe(false);
    expect(isToolResult({ ok: false, error: { code: 'NOPE', message: 'x' } })).toBe(false);
    expect(isToolResult('text')).toBe(false);
    expect(isToolResult(null)).toBe(false);
  });

  it('accepts well-formed artifacts and rejects malformed ones', () => {
    const shot = { path: '/data/android/screenshot.png', mimeType: 'image/png' };
    expect(isToolResult(successResult('saved', { artifacts: [shot] }))).toBe(true);
    expect(successResult('saved', { artifacts: [] })).toEqual({ ok: true, content: 'saved' });
    expect(isToolResult({ ok: true, content: 'x', artifacts: shot })).toBe(false);
    expect(
      isToolResult({
        ok: true,
        content: 'x',
        artifacts: [{ path: 'relative.png', mimeType: 'image/png' }],
      }),
    ).toBe(false);
    expect(isToolResult({ ok: true, content: 'x', artifacts: [{ path: '/a.png' }] })).toBe(false);
  });
});
