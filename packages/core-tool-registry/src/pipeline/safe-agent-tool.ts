import type {
  AnyToolDefinition,
  ToolContext,
  ToolDefinition,
  ToolReturn,
} from '../contract/tool.js';
import { failureFromThrown, normaliseReturn } from './execution-steps.js';

/**
 * Wraps a tool so that nothing it throws escapes: metadata, schemas and run policy pass through
 * unchanged, and the context (with its stream sink) reaches the inner tool untouched, so streamed
 * output is never swallowed.
 */
export class SafeAgentTool<TArgs = Record<string, unknown>> implements ToolDefinition<TArgs> {
  readonly inner: ToolDefinition<TArgs>;

  constructor(inner: ToolDefinition<TArgs>) {
    this.inner = inner;
  }

  /** Wraps a tool unless it is already wrapped. */
  static wrap<TArgs>(tool: ToolDefinition<TArgs>): SafeAgentTool<TArgs> {
    return tool instanceof SafeAgentTool ? tool : new SafeAgentTool(tool);
  }

  get id() {
    return this.inner.id;
  }
  get description() {
    return this.inner.description;
  }
  get inputSchema() {
    return this.inner.inputSchema;
  }
  get outputSchema() {
    return this.inner.outputSchema;
  }
  get metadata() {
    return this.inner.metadata;
  }
  get runPolicy() {
    return this.inner.runPolicy;
  }
  get environmentRules() {
    return this.inner.environmentRules;
  }

  async execute(args: TArgs, context: ToolContext): Promise<ToolReturn> {
    try {
      return normaliseReturn(this.inner.id, await this.inner.execute(args, context));
    } catch (thrown) {
      return failureFromThrown(thrown, context.signal);
    }
  }
}

/** Wraps every tool of a list. */
export function wrapSafely(tools: readonly AnyToolDefinition[]): AnyToolDefinition[] {
  return tools.map((tool) => SafeAgentTool.wrap(tool));
}
