import type { ToolExecutor } from '../contract/tool-executor.js';
import type { ToolResult } from '../contract/tool-result.js';
import type { JsonSchema } from '../contract/tool-schema.js';
import {
  type AdapterCallOptions,
  type AdapterOptions,
  createAdapterToolset,
} from './adapter-tools.js';
import { DEFAULT_INLINE_IMAGE_BYTES, readInlineImages, renderForModel } from './artifact-output.js';
import type { ProviderNames } from './provider-names.js';

/** A tool definition as the Anthropic Messages API takes it in `tools`. */
export interface AnthropicToolDefinition {
  /** Provider-safe name (`[A-Za-z0-9_-]`, at most 64 characters). */
  readonly name: string;
  readonly description: string;
  /** The tool's input JSON Schema. */
  readonly input_schema: JsonSchema;
}

/** A `tool_use` content block from an assistant message. */
export interface AnthropicToolUse {
  readonly type?: 'tool_use';
  readonly id: string;
  readonly name: string;
  /** The arguments as an object. */
  readonly input: unknown;
}

/** A block of a `tool_result`'s content: text, or an image in base64. */
export type AnthropicToolResultContent =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image';
      readonly source: {
        readonly type: 'base64';
        readonly media_type: string;
        readonly data: string;
      };
    };

/** The `tool_result` content block that answers a `tool_use`. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  /**
   * The rendered result: the content (with a `File:` line per artifact it does not name), or
   * `Error: [CODE] …` with the next step. When the result returned images small enough to send
   * (`inlineImageBytes`), a list: that text block, then one image block per image.
   */
  readonly content: string | readonly AnthropicToolResultContent[];
  /** Present and true when the call failed. */
  readonly is_error?: true;
}

/** Anthropic tool definitions for a registry, and how to answer their `tool_use` blocks. */
export interface AnthropicToolset {
  /** The tools, sorted by tool id. */
  readonly tools: readonly AnthropicToolDefinition[];
  /** Tool id ↔ tool name. */
  readonly names: ProviderNames;
  /** Runs one `tool_use` through the executor and returns the `tool_result` block and the result. */
  run(
    toolUse: AnthropicToolUse,
    options?: Omit<AdapterCallOptions, 'callId'>,
  ): Promise<{ block: AnthropicToolResultBlock; result: ToolResult }>;
}

/**
 * Exposes the executor's tools as Anthropic tool definitions. Calls run through the same
 * executor; failures come back as `is_error` results whose text says what to do next.
 */
export function createAnthropicTools(
  executor: ToolExecutor,
  options: AdapterOptions = {},
): AnthropicToolset {
  const toolset = createAdapterToolset(executor, options);
  return {
    tools: toolset.tools.map((tool) => ({
      name: toolset.names.toProviderName(tool.id) as string,
      description: tool.description,
      input_schema: tool.inputSchema.jsonSchema,
    })),
    names: toolset.names,
    async run(toolUse, callOptions = {}) {
      const result = await toolset.run(toolUse.name, toolUse.input, {
        ...callOptions,
        callId: toolUse.id,
      });
      const text = renderForModel(result);
      if (!result.ok) {
        return {
          block: { type: 'tool_result', tool_use_id: toolUse.id, content: text, is_error: true },
          result,
        };
      }
      const images = await readInlineImages(
        result.artifacts,
        options.inlineImageBytes ?? DEFAULT_INLINE_IMAGE_BYTES,
      );
      const content: AnthropicToolResultBlock['content'] =
        images.length === 0
          ? text
          : [
              { type: 'text', text },
              ...images.map((image) => ({
                type: 'image' as const,
                source: { type: 'base64' as const, media_type: image.mimeType, data: image.data },
              })),
            ];
      return { block: { type: 'tool_result', tool_use_id: toolUse.id, content }, result };
    },
  };
}
