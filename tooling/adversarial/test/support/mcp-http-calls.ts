// Raw MCP Streamable HTTP requests, so that tests see the status and headers a client gets.

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** Posts one JSON-RPC message to the MCP endpoint; an SSE reply is read to its first message. */
export async function post(
  url: string,
  message: unknown,
  token?: string,
  sessionId?: string,
): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...(sessionId !== undefined
        ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }
        : {}),
    },
    body: JSON.stringify(message),
  });
  return replyOf(response);
}

/** A response as a {@link Reply}: an SSE reply is read to its first message. */
async function replyOf(response: Response): Promise<Reply> {
  const text = await response.text();
  const data = response.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice(6)
    : text;
  return {
    status: response.status,
    headers: response.headers,
    body: data ? JSON.parse(data) : undefined,
  };
}

/** Opens an MCP session with this token; returns its id. */
export async function openSession(url: string, token: string): Promise<string> {
  const reply = await post(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'auth-test', version: '1.0.0' },
      },
    },
    token,
  );
  if (reply.status !== 200) throw new Error(`initialize answered ${reply.status}`);
  const id = reply.headers.get('mcp-session-id');
  if (!id) throw new Error('no session id');
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, token, id);
  return id;
}

export function callMessage(name: string, args: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } };
}

export function textOf(reply: Reply): string {
  const result = (reply.body as { result?: { content?: { text?: string }[] } }).result;
  return result?.content?.map((block) => block.text ?? '').join('') ?? '';
}

/** The `_meta` envelope of a 2026-07-28 request from a client that declares no capabilities. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'adversary', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * One stateless 2026-07-28 `tools/call` as raw HTTP, with the standard headers and any `extra`
 * ones (`mcp-param-handle` …); an SSE reply is read to its first message.
 */
export async function postModernCall(
  url: string,
  name: string,
  args: Record<string, unknown>,
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: MODERN_ENVELOPE },
    }),
  });
  return replyOf(response);
}
