// How a connection or a request to an MCP server failed, as McpClient tells the cases apart.
import { UnauthorizedError } from '@modelcontextprotocol/client';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

/** A tool that runs only as a task (an MCP extension this client does not speak). */
export function tasksRequired(server: string, tool: string): ToolError {
  return new ToolError(
    ToolErrorCode.UNSUPPORTED,
    `MCP server "${server}" runs tool "${tool}" only with task-based execution, which this client does not support.`,
    {
      retryable: false,
      hint: 'Use another tool of this server, or one that does not require tasks.',
      details: { server, reason: 'tasks_required' },
    },
  );
}

/**
 * Whether a failed Streamable HTTP connection may be tried again over HTTP+SSE: not when the
 * server refused us (401, 403, a sign-in that is needed or was refused).
 */
export function isFallbackWorthy(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    if (cause instanceof UnauthorizedError) return false;
    const reason = cause instanceof ToolError ? cause.options.details?.reason : undefined;
    if (reason === 'sign_in_required' || reason === 'auth_refused') return false;
    const { code, status } = cause as { code?: unknown; status?: unknown };
    // 401/403 mean the server speaks Streamable HTTP and refused us: falling back would not help.
    if (code === 401 || code === 403 || status === 401 || status === 403) return false;
    const data = (cause as { data?: { status?: unknown } }).data;
    if (data?.status === 401 || data?.status === 403) return false;
    cause = (cause as { options?: { cause?: unknown } }).options?.cause ?? cause.cause;
  }
  return true;
}

/** Whether a transport error means the server wrote something that is not JSON-RPC. */
export function isParseError(error: unknown): boolean {
  return error instanceof SyntaxError || (error as { name?: string })?.name === 'ZodError';
}

/** What the server wrote instead of JSON-RPC, in a few words. */
export function describeGarbage(error: unknown): string {
  if (error instanceof SyntaxError) return error.message;
  return 'a JSON value that is not a JSON-RPC message';
}
