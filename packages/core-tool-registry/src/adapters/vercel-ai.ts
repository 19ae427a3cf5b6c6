import { jsonSchema, type ToolSet, tool } from 'ai';
import type { ToolExecutor } from '../tool-executor.js';
import { renderResult } from '../tool-result.js';
import { type AdapterOptions, createAdapterToolset } from './adapter-tools.js';
import type { ProviderNames } from './provider-names.js';

/** Vercel AI SDK tools for a registry. */
export interface VercelAIToolset {
  /** Pass as `tools` to `generateText` / `streamText`; keys are provider-safe names, sorted. */
  readonly tools: ToolSet;
  /** Tool id ↔ tool name. */
  readonly names: ProviderNames;
}

/**
 * Exposes the executor's tools as Vercel AI SDK tools. Each `execute` runs through the same
 * executor with the SDK's abort signal and tool call id, and returns the rendered result: the
 * content, or `Error: [CODE] …` with the next step (errors are content, never thrown).
 */
export function createVercelAITools(
  executor: ToolExecutor,
  options: AdapterOptions = {},
): VercelAIToolset {
  const toolset = createAdapterToolset(executor, options);
  const tools: ToolSet = {};
  for (const registered of toolset.tools) {
    const name = toolset.names.toProviderName(registered.id) as string;
    tools[name] = tool({
      description: registered.description,
      inputSchema: jsonSchema<Record<string, unknown>>(
        registered.inputSchema.jsonSchema as Parameters<typeof jsonSchema>[0],
      ),
      execute: async (input, { abortSignal, toolCallId }) =>
        renderResult(
          await toolset.run(name, input, {
            ...(abortSignal ? { signal: abortSignal } : {}),
            callId: toolCallId,
          }),
        ),
    });
  }
  return { tools, names: toolset.names };
}
