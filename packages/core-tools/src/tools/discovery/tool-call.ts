// `tool_call`: runs any tool by id through the same executor and gates.
import type { AnyToolDefinition, ToolExecutor } from '@toolsys/core-tool-registry';
import {
  defineTool,
  failureResult,
  nestedCallOptions,
  RunPolicies,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { DISCOVERY } from './shared.js';

/** The `tool_call` tool. */
export function callTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'tool_call',
    description:
      'Runs any tool of this deployment by id with its arguments, through the same permission, validation and time-limit checks as a direct call, and returns its result. Find ids with tool_search and arguments with tool_describe.',
    inputSchema: ToolSchema.object({
      id: z.string().min(1).max(200).describe('The tool id.'),
      arguments: z
        .record(z.string(), z.unknown())
        .default({})
        .describe('The arguments object, as tool_describe shows its schema.'),
    }),
    metadata: {
      category: 'system',
      // The called tool's own risk gate asks; this wrapper adds no risk of its own.
      risk: 'LOW',
      annotations: { ...ToolHints.destructive, openWorldHint: true },
    },
    runPolicy: RunPolicies.legacy,
    execute({ id, arguments: args }, context) {
      if (DISCOVERY.has(id)) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `id: ${id} cannot be called through tool_call`,
          {
            field: 'id',
            hint: `Call ${id} directly.`,
          },
        );
      }
      return executor.execute(id, args, nestedCallOptions(context));
    },
  });
}
