// `shortcut_run`: runs a defined shortcut by id.
import type { ToolExecutor } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  nestedCallOptions,
  RunPolicies,
  ToolErrorCode,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { RUNS_OTHER_TOOLS_METADATA } from './shared.js';

/** The `shortcut_run` tool. */
export function createShortcutRunTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'shortcut_run',
    description: 'Runs a shortcut by id.',
    inputSchema: ToolSchema.object({
      id: z.string().describe('Shortcut id.'),
      params: z
        .union([z.record(z.string(), z.unknown()), z.string()])
        .optional()
        .describe('Parameters (object or JSON).'),
    }),
    metadata: RUNS_OTHER_TOOLS_METADATA,
    runPolicy: RunPolicies.legacy,
    async execute({ id, params }, context) {
      if (!id.startsWith('shortcut.') || !executor.registry.has(id, context.principal)) {
        const defined = executor.registry
          .ids(context.principal)
          .filter((known) => known.startsWith('shortcut.'));
        return failureResult(ToolErrorCode.NOT_FOUND, `id: no shortcut named "${id}"`, {
          field: 'id',
          hint:
            defined.length > 0
              ? `Use one of: ${defined.slice(0, 10).join(', ')}.`
              : 'No shortcut is defined; define one with shortcut_define.',
          details: { defined },
        });
      }
      return executor.execute(id, params ?? {}, nestedCallOptions(context));
    },
  });
}
