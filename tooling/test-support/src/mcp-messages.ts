// The JSON-RPC messages and HTTP headers a bare MCP client sends, for tests and benches that speak
// the protocol by hand (over stdio lines or Streamable HTTP POSTs) instead of through the SDK.

/** The MCP protocol version the hand-written clients announce. */
export const MCP_PROTOCOL_VERSION = '2025-06-18';

/** The headers of every Streamable HTTP POST: a JSON body, JSON or SSE accepted back. */
export const MCP_POST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/** Options of {@link initializeRequest}. */
export interface InitializeRequestOptions {
  /** The JSON-RPC id. Default 1. */
  readonly id?: number;
  /** The client's name in `clientInfo`. Default `adversary`. */
  readonly clientName?: string;
  /** The client's version in `clientInfo`. Default `1.0.0`. */
  readonly clientVersion?: string;
  /** The capabilities announced. Default none (`{}`). */
  readonly capabilities?: Record<string, unknown>;
}

/** A JSON-RPC `initialize` request as an MCP client opens a session with it. */
export function initializeRequest(options: InitializeRequestOptions = {}) {
  return {
    jsonrpc: '2.0' as const,
    id: options.id ?? 1,
    method: 'initialize' as const,
    params: {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: options.capabilities ?? {},
      clientInfo: {
        name: options.clientName ?? 'adversary',
        version: options.clientVersion ?? '1.0.0',
      },
    },
  };
}
