import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { toMcpToolError } from './mcp-call-error.js';

const context = { server: 'srv', operation: 'tools/call "x"', timeoutMs: 100 };

describe('toMcpToolError', () => {
  it('maps a request timeout to TIMEOUT, not retryable', () => {
    const error = toMcpToolError(
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'),
      context,
    );
    expect(error.code).toBe('TIMEOUT');
    expect(error.options.retryable).toBe(false);
  });

  it('maps invalid params reported by the server to INVALID_ARGUMENT on arguments', () => {
    const error = toMcpToolError(
      new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad a'),
      context,
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe('MCP server "srv" rejected the arguments of tools/call "x": bad a');
    expect(error.options.field).toBe('arguments');
  });

  it('maps an unknown method to UNSUPPORTED and other remote errors to EXECUTION_FAILED', () => {
    expect(
      toMcpToolError(new ProtocolError(ProtocolErrorCode.MethodNotFound, 'no'), context).code,
    ).toBe('UNSUPPORTED');
    expect(
      toMcpToolError(new ProtocolError(ProtocolErrorCode.InternalError, 'boom'), context).code,
    ).toBe('EXECUTION_FAILED');
  });

  it('blames garbage on stdout for a dropped connection, but not for a real error answer', () => {
    const garbage = { ...context, garbage: 'Unexpected token' };
    expect(
      toMcpToolError(new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), garbage).options
        .details,
    ).toEqual({ server: 'srv', reason: 'invalid_stdout' });
    expect(
      toMcpToolError(new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad'), garbage).code,
    ).toBe('INVALID_ARGUMENT');
  });

  it('names the protocol negotiation, the input rounds and a capability the server wanted', () => {
    const era = toMcpToolError(
      new SdkError(SdkErrorCode.EraNegotiationFailed, 'no pinned version offered'),
      context,
    );
    expect(era.options.details).toEqual({ server: 'srv', reason: 'protocol_negotiation' });
    expect(era.options.hint).toContain('protocolVersion');
    const rounds = toMcpToolError(
      new SdkError(SdkErrorCode.InputRequiredRoundsExceeded, 'too many', { rounds: 8 }),
      context,
    );
    expect(rounds.message).toBe(
      'MCP server "srv" kept asking for more input during tools/call "x"; the call was stopped after 8 rounds.',
    );
    const capability = toMcpToolError(
      new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, 'needs elicitation'),
      context,
    );
    expect(capability.code).toBe('UNSUPPORTED');
    expect(capability.options.details).toMatchObject({ reason: 'input_not_supported' });
  });
});
