import type { ToolExecutor } from '../contract/tool-executor.js';
import type { ToolResult } from '../contract/tool-result.js';
import type { JsonSchema } from '../contract/tool-schema.js';
import {
  type AdapterCallOptions,
  type AdapterOptions,
  createAdapterToolset,
} from './adapter-tools.js';
import { renderForModel } from './artifact-output.js';
import type { ProviderNames } from './provider-names.js';

/** A function tool as the OpenAI Chat Completions API takes it in `tools`. */
export interface OpenAIFunctionTool {
  readonly type: 'function';
  readonly function: {
    /** Provider-safe name (no dots, at most 64 characters). */
    readonly name: string;
    readonly description: string;
    /** The tool's input JSON Schema. */
    readonly parameters: JsonSchema;
  };
}

/** A tool call from an assistant message (`message.tool_calls[i]`). */
export interface OpenAIToolCall {
  readonly id: string;
  readonly type?: 'function';
  readonly function: {
    readonly name: string;
    /** The arguments as the model wrote them: a JSON string. */
    readonly arguments: string;
  };
}

/** The `tool` message that answers a tool call. */
export interface OpenAIToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  /**
   * The rendered result: the content (with a `File:` line per artifact it does not name; tool
   * messages take no images), or `Error: [CODE] …` with the next step.
   */
  readonly content: string;
}

/** OpenAI function tools for a registry, and how to answer their calls. */
export interface OpenAIToolset {
  /** The tools, sorted by tool id. */
  readonly tools: readonly OpenAIFunctionTool[];
  /** Tool id ↔ function name. */
  readonly names: ProviderNames;
  /** Runs one tool call through the executor and returns the `tool` message and the result. */
  run(
    call: OpenAIToolCall,
    options?: Omit<AdapterCallOptions, 'callId'>,
  ): Promise<{ message: OpenAIToolMessage; result: ToolResult }>;
}

/**
 * Exposes the executor's tools as OpenAI function tools. Calls run through the same executor
 * (gates, validation, policies); failures come back as text the model can act on.
 */
export function createOpenAITools(
  executor: ToolExecutor,
  options: AdapterOptions = {},
): OpenAIToolset {
  const toolset = createAdapterToolset(executor, options);
  return {
    tools: toolset.tools.map((tool) => ({
      type: 'function' as const,
      function: {
        name: toolset.names.toProviderName(tool.id) as string,
        description: tool.description,
        parameters: tool.inputSchema.jsonSchema,
      },
    })),
    names: toolset.names,
    async run(call, callOptions = {}) {
      const result = await toolset.run(call.function.name, call.function.arguments, {
        ...callOptions,
        callId: call.id,
      });
      return {
        message: { role: 'tool', tool_call_id: call.id, content: renderForModel(result) },
        result,
      };
    },
  };
}
