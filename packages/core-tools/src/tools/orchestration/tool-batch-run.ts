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
      'Runs up to 16 tool calls strictly in order in one turn and stops at the first failure; every later step returns "Not executed: an earlier action in this turn failed.". A step can use the output of an earlier step with {n} (0-based): "{0}" as a whole argument value, or inside text ("cat {1}"); outputs are cut to their first 4 KB; write {{n}} for a literal {n}. Each step passes the same permission, rate-limit and breaker checks as a single call. Use single calls when a step depends on judging an earlier result.',
    inputSchema: ToolSchema.object({
      steps: z
        .union([z.array(z.unknown()), z.string().describe('The same array, JSON-encoded.')])
        .describe('Steps: [{"tool": "<id>", "args": {...}}, ...] (inline array or JSON text).'),
      budgetMs: z
        .number()
        .int()
        .positive()
        .max(MAX_BATCH_BUDGET_MS)
        .default(DEFAULT_BATCH_BUDGET_MS)
        .describe('Wall-clock budget for the whole batch in ms (default 120000, at most 600000).'),
    }),
    metadata: RUNS_OTHER_TOOLS_METADATA,
    runPolicy: RunPolicies.legacy,
    execute({ steps, budgetMs }, context) {
      return runner.run(steps, { budgetMs, ...nestedCallOptions(context) });
    },
  });
}
