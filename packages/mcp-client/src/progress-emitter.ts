import type { ToolContext } from '@toolsys/core-tool-registry';
import type { McpCallOptions } from './mcp-client.js';

/** Forwards a remote tool's progress notifications to the call's event sink. */
export function progressEmitter(context: ToolContext): NonNullable<McpCallOptions['onProgress']> {
  return (progress) => context.emit({ type: 'progress', ...progress });
}
