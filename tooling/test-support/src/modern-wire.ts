// One MCP 2026-07-28 request on the wire, as any client sends it: the `_meta` envelope and the
// standard headers. For what the SDK's client does not send itself (the Tasks extension).

/** What {@link modernRequest} sends. */
export interface ModernRequestOptions {
  /** The endpoint, `…/mcp`. */
  readonly url: string;
  /** A bearer token, if the server wants one. */
  readonly token?: string;
  /** Whether the client declares the Tasks extension. Default true. */
  readonly tasks?: boolean;
  /** The `Mcp-Name` header; default the request's `name` or `taskId`. */
  readonly name?: string;
  /** How long to wait for the answer, in ms (the client's patience). Default 20 s. */
  readonly timeoutMs?: number;
}

/** The JSON-RPC answer and the HTTP facts around it. */
export interface ModernAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
  readonly status: number;
  /** The load balancer's `x-served-by`, when there is one. */
  readonly servedBy: string | null;
}

let nextId = 1;

/** Sends `method` with `params` and reads the answer (JSON, or the last SSE message with an id). */
export async function modernRequest(
  options: ModernRequestOptions,
  method: string,
  params: Record<string, unknown>,
): Promise<ModernAnswer> {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities':
          options.tasks === false ? {} : { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    },
  };
  const name = options.name ?? (params.name as string | undefined) ?? (params.taskId as string);
  const response = await fetch(options.url, {
    method: 'POST',
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' && name !== '' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
  });
  const text = await response.text();
  const message = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .findLast((line) => line.includes('"id"')) ?? '{}');
  let parsed: { result?: Record<string, unknown>; error?: ModernAnswer['error'] } = {};
  try {
    parsed = JSON.parse(message);
  } catch {
    parsed = { error: { code: 0, message: text.slice(0, 500) } };
  }
  return { ...parsed, status: response.status, servedBy: response.headers.get('x-served-by') };
}

/** Polls `tasks/get` until `until(status)` holds; throws after `timeoutMs`. */
export async function pollTask(
  options: ModernRequestOptions,
  taskId: string,
  until: (status: string) => boolean,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last: ModernAnswer | undefined;
  while (Date.now() < deadline) {
    last = await modernRequest(options, 'tasks/get', { taskId });
    if (last.error) throw new Error(`tasks/get: ${last.error.message}`);
    if (last.result && until(String(last.result.status))) return last.result;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} stayed ${String(last?.result?.status)}`);
}
