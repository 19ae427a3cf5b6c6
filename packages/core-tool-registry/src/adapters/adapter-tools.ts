import type { ConfirmFunction, RegisteredTool, ToolEvent } from '../contract/tool.js';
import { ToolErrorCode } from '../contract/tool-error.js';
import type { ExecuteOptions, ToolExecutor } from '../contract/tool-executor.js';
import { failureResult, type ToolResult } from '../contract/tool-result.js';
import { ToolSuggester } from '../registry/tool-suggester.js';
import { ProviderNames, type ProviderNamesOptions } from './provider-names.js';

/** Options shared by the provider adapters. */
export interface AdapterOptions extends ProviderNamesOptions {
  /** Which tools to expose; default every tool of the executor's registry. */
  filter?: (tool: RegisteredTool) => boolean;
  /** The session permission answers are remembered under. Default `adapter`. */
  sessionId?: string;
  /** Receives progress and streamed output of every call. */
  onEvent?: (event: ToolEvent) => void;
  /** Asks the user for confirmations of these calls; the executor's own when absent. */
  confirm?: ConfirmFunction;
  /**
   * Images (PNG, JPEG, WebP, GIF) a result returns as artifacts are sent to the model inline up
   * to this size each, where tool results can hold images; 0 sends none, and larger ones are
   * named by path in the text. Anthropic: default 1 MiB. Vercel AI SDK 6: default 0, since its
   * tools do not know the provider (set it for Anthropic, Google or OpenAI Responses models; the
   * OpenAI Chat provider would send the images as JSON text). OpenAI adapter: never.
   */
  inlineImageBytes?: number;
}

/** Per-call options of an adapter's `run`. */
export interface AdapterCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** A call id chosen by the caller (e.g. the provider's tool call id). */
  callId?: string;
}

/**
 * The tools an adapter exposes, sorted by id (a deterministic order for prompt caching), with
 * their provider names, and a way to run a call by provider name through the executor.
 */
export interface AdapterToolset {
  readonly tools: readonly RegisteredTool[];
  readonly names: ProviderNames;
  /** Runs a call named by the provider; an unknown name is NOT_FOUND naming close names. */
  run(providerName: string, rawArgs: unknown, options?: AdapterCallOptions): Promise<ToolResult>;
}

/** Selects the tools of an executor and maps their names for a provider. */
export function createAdapterToolset(
  executor: ToolExecutor,
  options: AdapterOptions = {},
): AdapterToolset {
  const tools = executor.registry.list().filter((tool) => options.filter?.(tool) ?? true);
  const names = ProviderNames.from(
    tools.map((tool) => tool.id),
    options.maxLength === undefined ? {} : { maxLength: options.maxLength },
  );
  const suggester = new ToolSuggester();
  return {
    tools,
    names,
    async run(providerName, rawArgs, callOptions = {}) {
      const id = names.toToolId(providerName);
      if (id === undefined) {
        const known = names.entries().map(([, name]) => name);
        const suggestions = suggester.suggest(providerName, known);
        return failureResult(
          ToolErrorCode.NOT_FOUND,
          suggestions.length > 0
            ? `Unknown tool "${providerName}". Did you mean: ${suggestions.join(', ')}?`
            : `Unknown tool "${providerName}".`,
          {
            hint:
              suggestions.length > 0
                ? `Call one of: ${suggestions.join(', ')}.`
                : 'Call one of the tools you were given.',
            details: { toolName: providerName, suggestions },
          },
        );
      }
      const execute: ExecuteOptions = {
        sessionId: options.sessionId ?? 'adapter',
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        ...(callOptions.callId ? { callId: callOptions.callId } : {}),
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(options.confirm ? { confirm: options.confirm } : {}),
      };
      return executor.execute(id, rawArgs, execute);
    },
  };
}
