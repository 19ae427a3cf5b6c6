import type { CallToolResult, ContentBlock, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type RegisteredTool, renderResult, type ToolResult } from '@toolsys/core-tool-registry';

/** The `_meta` key under which Toolsys puts its own tool facts (risk, category). */
export const TOOLSYS_META_KEY = 'dev.toolsys/tool';

/** The `_meta` key of a failed call's structured error. */
export const TOOLSYS_ERROR_META_KEY = 'dev.toolsys/error';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a tool's output schema can be sent as an MCP `outputSchema` (it must be an object). */
function hasObjectOutput(tool: RegisteredTool): boolean {
  return tool.outputSchema?.jsonSchema.type === 'object';
}

/**
 * Describes a registered tool as an MCP tool: its id, description, input JSON Schema, its
 * annotations as MCP hints, and its output schema when the tool returns an object.
 */
export function toMcpTool(tool: RegisteredTool): Tool {
  const { annotations, category, risk, tags } = tool.metadata;
  const described: Tool = {
    name: tool.id,
    description: tool.description,
    inputSchema: tool.inputSchema.jsonSchema as Tool['inputSchema'],
    annotations: {
      readOnlyHint: annotations.readOnlyHint,
      destructiveHint: annotations.destructiveHint,
      idempotentHint: annotations.idempotentHint,
      openWorldHint: annotations.openWorldHint,
    },
    _meta: {
      [TOOLSYS_META_KEY]: {
        category,
        risk,
        tags: [...tags],
        sensitiveAction: annotations.sensitiveAction,
        runPolicy: tool.runPolicy?.name ?? 'legacy',
      },
    },
  };
  if (hasObjectOutput(tool)) {
    described.outputSchema = tool.outputSchema?.jsonSchema as Tool['outputSchema'];
  }
  return described;
}

/** Options of {@link toCallToolResult}. */
export interface CallToolResultOptions {
  /**
   * The tool that answered. Only a tool that declares an object output schema gets
   * `structuredContent` (its data, which holds what its text shows); the data of any other tool
   * stays out, so a client that prefers structured content still shows the model the text.
   */
  readonly tool?: RegisteredTool;
  /** The blocks of the result's artifacts, after the text (see `artifactContent`). */
  readonly artifactBlocks?: readonly ContentBlock[];
}

/**
 * Turns a tool result into an MCP call result: the rendered text the model reads, `isError` on
 * failure (the model sees its own mistake), `structuredContent` when a tool with an output schema
 * returned an object, the structured error under `_meta` for clients that branch on the code, and
 * after the text the blocks of the result's artifacts.
 */
export function toCallToolResult(
  result: ToolResult,
  options: CallToolResultOptions = {},
): CallToolResult {
  const content: ContentBlock[] = [{ type: 'text', text: renderResult(result) }];
  if (!result.ok) {
    const { code, message, field, hint, retryable, retryAfterMs } = result.error;
    return {
      content,
      isError: true,
      _meta: {
        [TOOLSYS_ERROR_META_KEY]: {
          code,
          message,
          hint,
          retryable,
          ...(field !== undefined ? { field } : {}),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        },
      },
    };
  }
  content.push(...(options.artifactBlocks ?? []));
  if (options.tool && hasObjectOutput(options.tool) && isPlainObject(result.data)) {
    return { content, structuredContent: result.data };
  }
  return { content };
}
