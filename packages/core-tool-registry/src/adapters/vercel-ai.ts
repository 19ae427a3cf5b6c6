import { jsonSchema, type ToolSet, tool } from 'ai';
import type { ToolExecutor } from '../contract/tool-executor.js';
import type { ToolArtifact } from '../contract/tool-result.js';
import { type AdapterOptions, createAdapterToolset } from './adapter-tools.js';
import { readInlineImages, renderForModel } from './artifact-output.js';
import type { ProviderNames } from './provider-names.js';

/** Vercel AI SDK tools for a registry. */
export interface VercelAIToolset {
  /** Pass as `tools` to `generateText` / `streamText`; keys are provider-safe names, sorted. */
  readonly tools: ToolSet;
  /** Tool id ↔ tool name. */
  readonly names: ProviderNames;
}

/** How many recent calls' artifacts are kept for `toModelOutput`. */
const KEPT_CALLS = 256;

/** The model output `toModelOutput` builds (the SDK's `ToolResultOutput`, the parts used here). */
type ModelOutput =
  | { type: 'text'; value: string }
  | {
      type: 'content';
      value: Array<
        { type: 'text'; text: string } | { type: 'image-data'; data: string; mediaType: string }
      >;
    };

/**
 * Exposes the executor's tools as Vercel AI SDK tools. Each `execute` runs through the same
 * executor with the SDK's abort signal and tool call id, and returns the rendered result: the
 * content, or `Error: [CODE] …` with the next step (errors are content, never thrown). Files the
 * tool wrote are named in that text. With AI SDK 6 and `inlineImageBytes` set, images among them
 * also reach the model as image parts: set it only for a provider that takes images in tool
 * results (Anthropic, Google, OpenAI Responses); the OpenAI Chat provider would send them as
 * JSON text. Default 0 (none).
 */
export function createVercelAITools(
  executor: ToolExecutor,
  options: AdapterOptions = {},
): VercelAIToolset {
  const toolset = createAdapterToolset(executor, options);
  // Off unless asked: the SDK's tools do not know the model's provider, and some providers (the
  // OpenAI Chat one) turn image parts of a tool result into JSON text, base64 and all.
  const inlineImageBytes = options.inlineImageBytes ?? 0;
  // The output stays the text (what `execute` returned before); the artifacts wait here, by
  // tool call id, for the SDK to ask how the model should see that output.
  const artifactsByCall = new Map<string, readonly ToolArtifact[]>();
  const tools: ToolSet = {};
  for (const registered of toolset.tools) {
    const name = toolset.names.toProviderName(registered.id) as string;
    tools[name] = tool({
      description: registered.description,
      inputSchema: jsonSchema<Record<string, unknown>>(
        registered.inputSchema.jsonSchema as Parameters<typeof jsonSchema>[0],
      ),
      execute: async (input, { abortSignal, toolCallId }) => {
        const result = await toolset.run(name, input, {
          ...(abortSignal ? { signal: abortSignal } : {}),
          callId: toolCallId,
        });
        if (result.ok && result.artifacts !== undefined && inlineImageBytes > 0) {
          artifactsByCall.set(toolCallId, result.artifacts);
          for (const oldest of artifactsByCall.keys()) {
            if (artifactsByCall.size <= KEPT_CALLS) break;
            artifactsByCall.delete(oldest);
          }
        }
        return renderForModel(result);
      },
      toModelOutput: async (call: unknown): Promise<ModelOutput> => {
        // AI SDK 6 passes { toolCallId, input, output }; AI SDK 5 passes the output alone.
        if (typeof call !== 'object' || call === null || !('toolCallId' in call)) {
          return { type: 'text', value: String(call) };
        }
        const { toolCallId, output } = call as { toolCallId: string; output: unknown };
        const text = typeof output === 'string' ? output : JSON.stringify(output);
        const images = await readInlineImages(artifactsByCall.get(toolCallId), inlineImageBytes);
        if (images.length === 0) return { type: 'text', value: text };
        return {
          type: 'content',
          value: [
            { type: 'text', text },
            ...images.map((image) => ({
              type: 'image-data' as const,
              data: image.data,
              mediaType: image.mimeType,
            })),
          ],
        };
      },
    });
  }
  return { tools, names: toolset.names };
}
