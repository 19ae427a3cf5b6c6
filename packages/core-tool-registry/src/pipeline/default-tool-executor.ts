import { checkArgumentLimits } from '../contract/argument-limits.js';
import type { ConfirmFunction } from '../contract/tool.js';
import type { ExecuteOptions, ToolExecutor } from '../contract/tool-executor.js';
import type { ToolResult } from '../contract/tool-result.js';
import { ToolServices } from '../contract/tool-services.js';
import { ALLOW_ALL_GATE, type ToolExecutionGate } from '../policies/tool-execution-gate.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { ToolSuggester } from '../registry/tool-suggester.js';
import { ToolUsageTracker } from '../registry/tool-usage-tracker.js';
import {
  createToolContext,
  failureFromThrown,
  invokeTool,
  lookupTool,
  parseRawArguments,
} from './execution-steps.js';
import { ToolCallIds } from './tool-call-ids.js';

/** Options for {@link DefaultToolExecutor}. */
export interface DefaultToolExecutorOptions {
  registry: ToolRegistry;
  /** The risk gate; lets everything through when absent. */
  gate?: ToolExecutionGate;
  /** Aggregates usage; a fresh tracker when absent. */
  usageTracker?: ToolUsageTracker;
  /** Suggests close ids for unknown tools. */
  suggester?: ToolSuggester;
  /** Services handed to every call. */
  services?: ToolServices;
  /** Answers tool-level confirmations (e.g. a shell command). */
  confirm?: ConfirmFunction;
  /** Generates call ids. */
  callIds?: ToolCallIds;
  /** Clock for latency, in ms. */
  now?: () => number;
}

/**
 * The v2 pipeline: lookup (miss → suggestions) → risk gate → schema validation → tool → result.
 * Nothing thrown ever leaves `execute`.
 */
export class DefaultToolExecutor implements ToolExecutor {
  readonly registry: ToolRegistry;
  readonly usageTracker: ToolUsageTracker;
  readonly #gate: ToolExecutionGate;
  readonly #suggester: ToolSuggester;
  readonly #services: ToolServices;
  readonly #confirm: ConfirmFunction | undefined;
  readonly #callIds: ToolCallIds;
  readonly #now: () => number;

  constructor(options: DefaultToolExecutorOptions) {
    this.registry = options.registry;
    this.usageTracker = options.usageTracker ?? new ToolUsageTracker();
    this.#gate = options.gate ?? ALLOW_ALL_GATE;
    this.#suggester = options.suggester ?? new ToolSuggester();
    this.#services = options.services ?? new ToolServices();
    this.#confirm = options.confirm;
    this.#callIds = options.callIds ?? new ToolCallIds();
    this.#now = options.now ?? (() => performance.now());
  }

  async execute(id: string, rawArgs: unknown, options: ExecuteOptions = {}): Promise<ToolResult> {
    const signal = options.signal ?? new AbortController().signal;
    try {
      return await this.#execute(id, rawArgs, options, signal);
    } catch (thrown) {
      return failureFromThrown(thrown, signal);
    }
  }

  async #execute(
    id: string,
    rawArgs: unknown,
    options: ExecuteOptions,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const found = lookupTool(this.registry, this.#suggester, id);
    if (!found.ok) return found.failure;
    const { tool } = found;
    const started = this.#now();
    const finish = (result: ToolResult): ToolResult => {
      this.usageTracker.record(tool.id, result, this.#now() - started);
      return result;
    };
    const callId = options.callId ?? this.#callIds.next();
    const sessionId = options.sessionId ?? 'default';
    const verdict = await this.#gate.check(tool, rawArgs, { sessionId, callId, signal });
    if (!verdict.allowed) return finish(verdict.result);
    const parsedArgs = parseRawArguments(rawArgs);
    if (!parsedArgs.ok) return finish(parsedArgs.failure);
    const overLimit = checkArgumentLimits(tool, parsedArgs.value);
    if (overLimit) return finish(overLimit);
    const validated = tool.inputSchema.parse(parsedArgs.value);
    if (!validated.ok) return finish(validated.failure);
    const context = createToolContext({
      tool,
      callId,
      sessionId,
      attempt: 1,
      signal,
      services: this.#services,
      onEvent: options.onEvent,
      confirm: options.confirm ?? this.#confirm,
    });
    return finish(await invokeTool(tool, validated.value, context));
  }
}
