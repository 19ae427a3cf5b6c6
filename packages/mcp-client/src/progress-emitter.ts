import type { ToolContext } from '@toolsys/core-tool-registry';
import type { McpCallOptions } from './mcp-client.js';

/** Forwards a remote tool's progress notifications to the call's event sink. */
export function progressEmitter(context: ToolContext): NonNullable<McpCallOptions['onProgress']> {
  return (progress) => context.emit({ type: 'progress', ...progress });
}

/**
 * A progress notification's params as `onProgress` receives them: `progress`, with `total` and
 * `message` when the server sent them; undefined when `progress` is not a number.
 */
export function progressUpdate(params: {
  progress?: unknown;
  total?: unknown;
  message?: unknown;
}): Parameters<NonNullable<McpCallOptions['onProgress']>>[0] | undefined {
  if (typeof params.progress !== 'number') return undefined;
  return {
    progress: params.progress,
    ...(typeof params.total === 'number' ? { total: params.total } : {}),
    ...(typeof params.message === 'string' ? { message: params.message } : {}),
  };
}
