/**
 * What tests of tool packages share: the executor the host serves, built from a list of tools, and
 * readers that turn a result into its text or its error, failing loudly on the other outcome.
 */
import type { AnyToolDefinition } from '../contract/tool.js';
import { renderResult, type ToolFailureError, type ToolResult } from '../contract/tool-result.js';
import {
  createToolExecutor,
  type PipelineToolExecutor,
  type ToolExecutorOptions,
} from '../pipeline/pipeline-tool-executor.js';
import { ToolRegistry } from '../registry/tool-registry.js';

/** Options for {@link createTestExecutor}: the executor's own options, registry optional. */
export interface TestExecutorOptions extends Partial<ToolExecutorOptions> {
  /** Tools registered (owner `test`) before the executor is built. Default: none. */
  tools?: readonly AnyToolDefinition[];
}

/**
 * Builds the executor a test calls tools through: {@link createToolExecutor}, the factory the host
 * uses, over `registry` (a fresh one when absent) with `tools` registered. With no layer options
 * a call is lookup, validation and the handler; pass `gate`, `runPolicies` … to test a layer.
 */
export function createTestExecutor(options: TestExecutorOptions = {}): PipelineToolExecutor {
  const { tools = [], registry = new ToolRegistry(), ...layers } = options;
  for (const tool of tools) registry.register(tool, { owner: 'test' });
  return createToolExecutor({ ...layers, registry });
}

/** The text of a successful result; throws with the rendered failure when the call failed. */
export function successText(result: ToolResult): string {
  if (result.ok) return result.content;
  throw new Error(`expected a successful result, got: ${renderResult(result)}`);
}

/** The error of a failed result; throws with the text when the call succeeded. */
export function failureError(result: ToolResult): ToolFailureError {
  if (!result.ok) return result.error;
  throw new Error(`expected a failed result, got success: ${result.content.slice(0, 500)}`);
}
