// Reading a tool result in assertion messages.
import type { ToolResult } from '@toolsys/core-tool-registry';

/** The text of a success, or a readable line for a failure (`Error: [CODE] message`). */
export function textOf(result: ToolResult): string {
  return result.ok ? result.content : `Error: [${result.error.code}] ${result.error.message}`;
}
