import type { CallToolResult } from '@modelcontextprotocol/client';
import {
  failureResult,
  successResult,
  ToolErrorCode,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { CleaningTally, markUntrusted, untrustedMarkers } from '@toolsys/core-tool-registry/text';
import { cleanRemoteStructured } from './clean-structured.js';
import { stripTerminalControls } from './terminal-text.js';

const MAX_TEXT_CHARS = 200_000;
const NOTICE = untrustedMarkers('mcp-server').notice;

/**
 * Remote text as the model reads it: cleaned (control, bidi, invisible and tag characters, hidden
 * comments; see `cleanUntrustedText`), with a line saying what was removed, between
 * `<untrusted-mcp-server-content>` markers under the notice that explains them. A marker the
 * server wrote itself is defused, so its text cannot close the block and speak outside it.
 */
export function markRemoteText(text: string): string {
  const tally = new CleaningTally();
  const cleaned = tally.clean(stripTerminalControls(text));
  const removed = tally.describe();
  return `${NOTICE}${removed ? `\n${removed}` : ''}\n${markUntrusted(cleaned, 'mcp-server')}`;
}

/** Which remote tool produced a result, for messages. */
export interface RemoteToolRef {
  /** The configured server name. */
  readonly server: string;
  /** The tool's name on that server. */
  readonly tool: string;
}

/**
 * Maps an MCP `CallToolResult` to a ToolResult: text blocks become the content the model reads,
 * other blocks a short description; `structuredContent` is kept as `data`, its strings cleaned
 * ({@link cleanRemoteStructured}); `isError: true` becomes
 * EXECUTION_FAILED carrying the remote message (not retryable: the tool itself refused). Terminal
 * escape sequences, control, bidi and invisible characters are removed from every text (newlines
 * and tabs stay), and the text is shown between `<untrusted-mcp-server-content>` markers
 * ({@link markRemoteText}): it is the server's, never the tool system's own words.
 */
export function toToolResult(result: CallToolResult, ref: RemoteToolRef): ToolResult {
  const blocks = result.content ?? [];
  const only = blocks.length === 1 ? blocks[0] : undefined;
  // The common answer, one short text block and nothing else, needs no rendering.
  if (
    only?.type === 'text' &&
    result.isError !== true &&
    result.structuredContent === undefined &&
    only.text.length <= MAX_TEXT_CHARS
  ) {
    if (only.text.length > 0) return successResult(markRemoteText(only.text));
  }
  const text = renderContent(blocks);
  if (result.isError === true) {
    return failureResult(
      ToolErrorCode.EXECUTION_FAILED,
      `MCP tool "${ref.tool}" on server "${ref.server}" reported an error:\n${text ? markRemoteText(text) : '(no message)'}`,
      {
        retryable: false,
        hint: 'Read the remote error, adjust the arguments or approach, then retry once.',
        details: { server: ref.server, tool: ref.tool, remoteError: true },
      },
    );
  }
  // Structured content is the server's text too: its strings are cleaned like the text blocks.
  const cleanedStructured =
    result.structuredContent === undefined
      ? undefined
      : cleanRemoteStructured(result.structuredContent);
  const structured = cleanedStructured?.value as Record<string, unknown> | undefined;
  const hasOtherBlocks = blocks.some((block) => block.type !== 'text');
  const structuredNote = cleanedStructured?.removed
    ? `\nIn the structured content: ${cleanedStructured.removed}`
    : '';
  const content =
    text || structured !== undefined
      ? `${markRemoteText(text || JSON.stringify(structured))}${structuredNote}`
      : '(no output)';
  if (structured !== undefined) return successResult(content, { data: structured });
  if (hasOtherBlocks) return successResult(content, { data: { content: result.content } });
  return successResult(content);
}

function renderContent(blocks: CallToolResult['content']): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(stripTerminalControls(block.text));
        break;
      case 'image':
      case 'audio':
        parts.push(`[${block.type}: ${block.mimeType}, ${approximateBytes(block.data)} bytes]`);
        break;
      case 'resource_link':
        parts.push(
          stripTerminalControls(
            `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`,
          ),
        );
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource && typeof resource.text === 'string') {
          parts.push(stripTerminalControls(resource.text));
        } else
          parts.push(
            stripTerminalControls(
              `[resource: ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}]`,
            ),
          );
        break;
      }
      default:
        parts.push('[unsupported content block]');
    }
  }
  const joined = parts.join('\n');
  return joined.length > MAX_TEXT_CHARS
    ? `${joined.slice(0, MAX_TEXT_CHARS)}\n… (output truncated at ${MAX_TEXT_CHARS} characters)`
    : joined;
}

function approximateBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}
