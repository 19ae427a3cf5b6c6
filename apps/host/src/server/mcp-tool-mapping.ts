import type { CallToolResult, ContentBlock, Tool } from '@modelcontextprotocol/server';
import {
  type RegisteredTool,
  renderResult,
  type ToolResult,
  taskSupportOf,
} from '@toolsys/core-tool-registry';
import { leanInputSchema } from './lean-schema.js';
import { toolTitle } from './tool-title.js';

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

/** Options for {@link toMcpTool}. */
export interface McpToolOptions {
  /** The name the tool is listed under, e.g. a client-safe `terminal_run`. Default: its id. */
  readonly name?: string;
  /** Rewrites the description, e.g. to name other tools as they are listed. Default: as is. */
  readonly describe?: (description: string) => string;
  /**
   * Also send the output schema and the Toolsys facts under `_meta` (risk, category, tags, run
   * policy): for a client that asked for them. Default false: a model reads neither, and every
   * listed token is paid on every turn.
   */
  readonly full?: boolean;
}

/**
 * The tool's annotations as MCP hints, each sent only when it differs from the value MCP assumes
 * when it is absent (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
 * `openWorldHint` true), and the destructive and idempotent hints only for a tool that writes
 * (MCP: they mean nothing for a read-only one). A client reads the same facts either way.
 */
function hintsOf(tool: RegisteredTool): NonNullable<Tool['annotations']> {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } =
    tool.metadata.annotations;
  return {
    ...(readOnlyHint ? { readOnlyHint: true } : {}),
    ...(!readOnlyHint && !destructiveHint ? { destructiveHint: false } : {}),
    ...(!readOnlyHint && idempotentHint ? { idempotentHint: true } : {}),
    ...(!openWorldHint ? { openWorldHint: false } : {}),
  };
}

/**
 * Describes a registered tool as an MCP tool: its name, title, description, input JSON Schema
 * (without guard-rail caps, see `leanInputSchema`) and annotations as MCP hints; with `full`, the
 * input schema as declared, its output schema (when the tool returns an object) and the Toolsys
 * facts under `_meta`.
 */
export function toMcpTool(tool: RegisteredTool, options: McpToolOptions = {}): Tool {
  const described: Tool = {
    name: options.name ?? tool.id,
    title: toolTitle(tool),
    description: options.describe ? options.describe(tool.description) : tool.description,
    inputSchema: (options.full
      ? tool.inputSchema.jsonSchema
      : leanInputSchema(tool.inputSchema.jsonSchema)) as Tool['inputSchema'],
    annotations: hintsOf(tool),
  };
  // A tool that may run as a task says so (MCP Tasks); `forbidden` is the protocol's default.
  const taskSupport = taskSupportOf(tool);
  if (taskSupport !== 'forbidden') described.execution = { taskSupport };
  if (!options.full) return described;
  const { annotations, category, risk, tags } = tool.metadata;
  described._meta = {
    [TOOLSYS_META_KEY]: {
      category,
      risk,
      tags: [...tags],
      sensitiveAction: annotations.sensitiveAction,
      runPolicy: tool.runPolicy?.name ?? 'legacy',
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
  /**
   * The client announced the experimental `dev.toolsys/tool` capability: it reads every tool's
   * data, so any tool that returned an object gets it as `structuredContent` (the text stays in
   * `content`, which such a client shows the model).
   */
  readonly data?: boolean;
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
  const structured = options.data === true || (options.tool && hasObjectOutput(options.tool));
  if (structured && isPlainObject(result.data)) {
    return { content, structuredContent: result.data };
  }
  return { content };
}
