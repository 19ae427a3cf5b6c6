import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { toMcpToolError } from './mcp-call-error.js';

const context = { server: 'srv', operation: 'tools/call "x"', timeoutMs: 100 };

describe('toMcpToolError', () => {
  it('maps a request timeout to TIMEOUT, not retryable', () => {
    const error = toMcpToolError(
      new McpError(ErrorCode.RequestTimeout, 'Request timed out'),
      context,
    );
    expect(error.code).toBe('TIMEOUT');
    expect(error.options.retryable).toBe(false);
  });

  it('maps invalid params reported by the server to INVALID_ARGUMENT on arguments', () => {
    const error = toMcpToolError(new McpError(ErrorCode.InvalidParams, 'bad a'), context);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe('MCP server "srv" rejected the arguments of tools/call "x": bad a');
    expect(error.options.field).toBe('arguments');
  });

  it('maps an unknown method to UNSUPPORTED and other remote errors to EXECUTION_FAILED', () => {
    expect(toMcpToolError(new McpError(ErrorCode.MethodNotFound, 'no'), context).code).toBe(
      'UNSUPPORTED',
    );
    expect(toMcpToolError(new McpError(ErrorCode.InternalError, 'boom'), context).code).toBe(
      'EXECUTION_FAILED',
    );
  });

  it('blames garbage on stdout for a dropped connection, but not for a real error answer', () => {
    const garbage = { ...context, garbage: 'Unexpected token' };
    expect(
      toMcpToolError(new McpError(ErrorCode.ConnectionClosed, 'closed'), garbage).options.details,
    ).toEqual({ server: 'srv', reason: 'invalid_stdout' });
    expect(toMcpToolError(new McpError(ErrorCode.InvalidParams, 'bad'), garbage).code).toBe(
      'INVALID_ARGUMENT',
    );
  });
});
