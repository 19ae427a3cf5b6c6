// `shortcut_define`: validates, persists and registers a shortcut.
import type { ToolExecutor } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  principalKey,
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
      'Defines a shortcut tool "shortcut.<name>": {"id", "description", "params": [{"name", "type", "description"}], "steps": [{"tool", "args"}]}; in args {param} inserts a parameter, {n} step n\'s output.',
    inputSchema: ToolSchema.object({
      definition: z
        .union([z.record(z.string(), z.unknown()), z.string()])
        .describe('Object or JSON text.'),
    }),
    metadata: {
      category: 'orchestration',
      risk: 'MEDIUM',
      annotations: { ...ToolHints.mutating, idempotentHint: true },
      orchestrates: true,
    },
    runPolicy: RunPolicies.mutating,
    execute({ definition }, context) {
      const parsed = parseShortcutDefinition(definition, {
        registry: executor.registry,
        principal: context.principal,
      });
      if (!parsed.ok) {
        const { error } = parsed.failure;
        const nested = error.field !== undefined && error.field !== 'definition';
        return failureResult(error.code, nested ? `definition.${error.message}` : error.message, {
          field: nested ? `definition.${error.field}` : 'definition',
          hint: error.hint,
        });
      }
      const shortcut = parsed.definition;
      // The caller's own namespace: defining an id another principal uses makes a second,
      // separate shortcut; the other's stays as it is, unseen by this caller. Redefining one's
      // own replaces it under a new revision, so no grant given for the old steps covers it.
      const definedBy = principalKey(context.principal);
      const existing = executor.registry.get(shortcut.id, context.principal);
      store.save(shortcut, definedBy);
      executor.registry.register(
        compileShortcut(shortcut, { runner, registry: executor.registry, definedBy }),
        { owner: 'shortcuts' },
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
