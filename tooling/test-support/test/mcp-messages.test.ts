import { describe, expect, it } from 'vitest';
import { initializeRequest, MCP_POST_HEADERS } from '../src/index.js';

describe('initializeRequest', () => {
  it('is an initialize request of the adversary client by default', () => {
    expect(initializeRequest()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'adversary', version: '1.0.0' },
      },
    });
  });

  it('takes the id, the client and the capabilities', () => {
    const request = initializeRequest({
      id: 7,
      clientName: 't',
      clientVersion: '1',
      capabilities: { elicitation: { form: {} } },
    });
    expect(request.id).toBe(7);
    expect(request.params.clientInfo).toEqual({ name: 't', version: '1' });
    expect(request.params.capabilities).toEqual({ elicitation: { form: {} } });
  });
});

describe('MCP_POST_HEADERS', () => {
  it('sends JSON and accepts JSON or an event stream', () => {
    expect(MCP_POST_HEADERS).toEqual({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
  });
});
