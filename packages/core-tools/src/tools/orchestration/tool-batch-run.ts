// `tool_batch_run`: up to 16 tool calls in order, stopping at the first failure.
import {
  type AnyToolDefinition,
  DEFAULT_BATCH_BUDGET_MS,
  defineTool,
  MAX_BATCH_BUDGET_MS,
  nestedCallOptions,
  RunPolicies,
  type ToolBatchRunner,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { RUNS_OTHER_TOOLS_METADATA } from './shared.js';

/** The `tool_batch_run` tool, running its steps through `runner`. */
export function createBatchTool(runner: ToolBatchRunner): AnyToolDefinition {
  return defineTool({
    id: 'tool_batch_run',
    description:
      'Runs up to 16 tool calls in order, stopping at the first failure; "{n}" inserts step n\'s output.',
    inputSchema: ToolSchema.object({
      steps: z
        .union([z.array(z.unknown()), z.string().describe('The same array, JSON-encoded.')])
        .describe('[{"tool", "args"}] or its JSON.'),
      budgetMs: z
        .number()
        .int()
        .positive()
        .max(MAX_BATCH_BUDGET_MS)
        .default(DEFAULT_BATCH_BUDGET_MS)
        .describe('Time budget in ms.'),
    }),
    metadata: RUNS_OTHER_TOOLS_METADATA,
    runPolicy: RunPolicies.legacy,
    execute({ steps, budgetMs }, context) {
      return runner.run(steps, { budgetMs, ...nestedCallOptions(context) });
    },
  });
}
