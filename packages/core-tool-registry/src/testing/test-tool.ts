/** Declaring a tool that exists only in a test, with everything but its id and function defaulted. */
import type { ToolDefinition } from '../contract/tool.js';
import { ToolHints, type ToolMetadataInput } from '../contract/tool-metadata.js';
import { ToolSchema } from '../contract/tool-schema.js';

/**
 * Metadata for a tool that exists only in a test: a LOW-risk utility with mutating hints, which is
 * what an undeclared test tool resolved to before metadata was declared.
 */
export const TEST_TOOL_METADATA: ToolMetadataInput = Object.freeze({
  category: 'utility',
  risk: 'LOW',
  annotations: ToolHints.mutating,
});

/** What {@link defineTestTool} takes: an id and a function; every other field is optional. */
export type TestToolDefinition<TArgs> = Pick<ToolDefinition<TArgs>, 'id' | 'execute'> &
  Partial<Omit<ToolDefinition<TArgs>, 'id' | 'execute'>>;

/**
 * Declares a test tool: description `fixture`, no arguments and {@link TEST_TOOL_METADATA} unless
 * the definition says otherwise; argument types are inferred from `inputSchema` as by `defineTool`.
 */
export function defineTestTool<TArgs = Record<string, unknown>>(
  definition: TestToolDefinition<TArgs>,
): ToolDefinition<TArgs> {
  return {
    description: 'fixture',
    inputSchema: ToolSchema.empty() as ToolSchema<TArgs>,
    metadata: TEST_TOOL_METADATA,
    ...definition,
  };
}
