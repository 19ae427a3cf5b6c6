// `shortcut_define`: validates, persists and registers a shortcut.
import type { ToolExecutor } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  type ToolBatchRunner,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { parseShortcutDefinition } from '../shortcuts/shortcut-definition.js';
import type { ShortcutStore } from '../shortcuts/shortcut-store.js';
import { compileShortcut } from '../shortcuts/shortcut-tool.js';

/** The `shortcut_define` tool: registers shortcuts in the executor's registry and saves them to `store`. */
export function createShortcutDefineTool(
  executor: ToolExecutor,
  runner: ToolBatchRunner,
  store: ShortcutStore,
): AnyToolDefinition {
  return defineTool({
    id: 'shortcut_define',
    description:
      'Defines a reusable shortcut: a named sequence of tool calls with parameters, registered at once as a tool "shortcut.<name>" and kept across restarts. Definition: {"id": "shortcut.<name>", "description", "preconditions"?: [text], "params": [{"name", "type": string|number|integer|boolean, "description", "default"?}], "steps": [{"tool", "args"}]}. In args, {param} inserts a parameter (JSON-escaped) and {n} the output of step n. Every declared parameter must be used. The shortcut\'s risk is the worst risk of its steps. Use shortcut_list for suggestions.',
    inputSchema: ToolSchema.object({
      definition: z
        .union([z.record(z.string(), z.unknown()), z.string()])
        .describe('The shortcut definition (an object, or JSON text).'),
    }),
    metadata: {
      category: 'orchestration',
      risk: 'MEDIUM',
      annotations: { ...ToolHints.mutating, idempotentHint: true },
      orchestrates: true,
    },
    runPolicy: RunPolicies.mutating,
    execute({ definition }) {
      const parsed = parseShortcutDefinition(definition, { registry: executor.registry });
      if (!parsed.ok) {
        const { error } = parsed.failure;
        const nested = error.field !== undefined && error.field !== 'definition';
        return failureResult(error.code, nested ? `definition.${error.message}` : error.message, {
          field: nested ? `definition.${error.field}` : 'definition',
          hint: error.hint,
        });
      }
      const shortcut = parsed.definition;
      const existing = executor.registry.get(shortcut.id);
      store.save(shortcut);
      executor.registry.register(
        compileShortcut(shortcut, { runner, registry: executor.registry }),
        {
          owner: 'shortcuts',
        },
      );
      const params = shortcut.params.map((param) => `${param.name}: ${param.type}`).join(', ');
      return successResult(
        `${existing ? 'Redefined' : 'Defined'} ${shortcut.id} (${shortcut.steps.length} step${shortcut.steps.length === 1 ? '' : 's'}, ${shortcut.risk} risk). Call it as ${shortcut.id} with {${params}}.`,
        {
          data: {
            id: shortcut.id,
            risk: shortcut.risk,
            steps: shortcut.steps.length,
            replaced: existing !== undefined,
          },
        },
      );
    },
  });
}
