// What a model is told about a quarantined remote tool: that it is held back, and the next step.
import { failureResult, ToolErrorCode, type ToolResult } from '@toolsys/core-tool-registry';
import type { QuarantineReason } from './tool-pins.js';

/** The command that shows what changed in `server`'s tools. */
export function diffCommand(server: string): string {
  return `toolsys mcp diff ${server}`;
}

/** The command that approves `server`'s quarantined tools. */
export function approveCommand(server: string): string {
  return `toolsys mcp approve ${server}`;
}

/** The answer to a call of a quarantined tool. */
export function quarantinedResult(
  server: string,
  tool: string,
  reason: QuarantineReason,
): ToolResult {
  const why =
    reason === 'changed'
      ? 'its description, schema or annotations changed since they were approved'
      : 'it is new since the server was approved';
  return failureResult(
    ToolErrorCode.PERMISSION_DENIED,
    `QUARANTINED: tool "${tool}" of MCP server "${server}" is held back: ${why}.`,
    {
      hint: `Do not retry; ask the user to review it with \`${diffCommand(server)}\` and approve it with \`${approveCommand(server)}\`.`,
      details: { server, tool, reason: 'quarantined', change: reason },
    },
  );
}
