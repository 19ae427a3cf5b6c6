// memory_recall_macro: a recorded macro by name or text, with its steps filled in.
import { type AnyToolDefinition, RunPolicies, ToolSchema } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { fillMacroSteps } from '../fill-macro-steps.js';
import type { MemoryMacro } from '../memory-model.js';

import {
  defineMemoryTool,
  invalidArgument,
  type OpenMemoryStore,
  READ_ONLY_METADATA,
} from './shared.js';

const recallSchema = ToolSchema.object({
  name: z.string().min(1).max(100).optional().describe('Exact macro name.'),
  query: z.string().min(1).max(500).optional().describe('Words describing the task.'),
  arguments: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe('Placeholder values.'),
  limit: z.number().int().min(1).max(20).default(3).describe('Most macros.'),
});

export function createRecallMacroTool(store: OpenMemoryStore): AnyToolDefinition {
  return defineMemoryTool(store, {
    id: 'memory_recall_macro',
    description: 'Recalls tool-call sequences that worked before, as steps for tool_batch_run.',
    inputSchema: recallSchema,
    outputSchema: ToolSchema.object({
      macros: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          params: z.array(z.object({ name: z.string() }).loose()),
          successCount: z.number(),
          failureCount: z.number(),
          ready: z.boolean(),
          missingArguments: z.array(z.string()),
          batch: z.object({ steps: z.array(z.object({ tool: z.string() }).loose()) }),
          shortcut: z.object({ id: z.string() }).loose(),
        }),
      ),
    }),
    metadata: READ_ONLY_METADATA,
    runPolicy: RunPolicies.quickRead,
    execute({ name, query, arguments: values = {}, limit }, _context, store) {
      if (name === undefined && query === undefined) {
        return invalidArgument(
          'query',
          'give name or query (or both)',
          'Send {"query": "words describing the task"} or {"name": "macro-name"}.',
        );
      }
      const macros = store.findMacros({
        limit,
        ...(name === undefined ? {} : { name }),
        ...(query === undefined ? {} : { text: query }),
      });
      if (macros.length === 0) {
        return {
          ok: true,
          content: `No macro matches ${name === undefined ? '' : `name "${name}"`}${name !== undefined && query !== undefined ? ' or ' : ''}${query === undefined ? '' : `"${query}"`}. Plan the steps yourself; successful sequences are remembered as macros.`,
          data: { macros: [] },
        };
      }
      const described = macros.map((macro) => describeMacro(macro, values));
      const mistyped = described.flatMap((entry) => entry.mistyped);
      if (mistyped.length > 0) {
        return invalidArgument('arguments', `arguments: ${mistyped.join('; ')}`);
      }
      const lines = described.map(({ data }) => {
        const params =
          data.params.length > 0 ? ` params: ${data.params.map((p) => p.name).join(', ')};` : '';
        const missing =
          data.missingArguments.length > 0
            ? ` Needs arguments: ${data.missingArguments.join(', ')} before it can run.`
            : '';
        return `- ${data.name} (succeeded ${data.successCount}×, failed ${data.failureCount}×):${params} ${data.description}\n  tool_batch_run ${JSON.stringify(data.batch)}${missing}`;
      });
      return {
        ok: true,
        content: `${described.length} macro${described.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
        data: { macros: described.map(({ data }) => data) },
      };
    },
  });
}

function describeMacro(
  macro: MemoryMacro,
  values: Readonly<Record<string, string | number | boolean>>,
): {
  data: {
    name: string;
    description: string;
    params: MemoryMacro['params'];
    successCount: number;
    failureCount: number;
    ready: boolean;
    missingArguments: string[];
    batch: { steps: { tool: string; args: Record<string, unknown> }[] };
    shortcut: Record<string, unknown>;
  };
  mistyped: string[];
} {
  const filled = fillMacroSteps(macro.steps, macro.params, values);
  return {
    data: {
      name: macro.name,
      description: macro.description,
      params: macro.params,
      successCount: macro.successCount,
      failureCount: macro.failureCount,
      ready: filled.missing.length === 0,
      missingArguments: filled.missing,
      batch: { steps: filled.steps.map((step) => ({ tool: step.tool, args: { ...step.args } })) },
      // The shape shortcut_define accepts: lower-case id in the shortcut.* namespace, typed params.
      shortcut: {
        id: shortcutIdOf(macro.name),
        description: macro.description || `Recalled macro ${macro.name}`,
        params: macro.params.map((param) => ({
          name: param.name,
          type: param.type ?? 'string',
          description: param.description ?? '',
        })),
        steps: macro.steps.map((step) => ({ tool: step.tool, args: { ...step.args } })),
      },
    },
    mistyped: filled.mistyped,
  };
}

function shortcutIdOf(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return `shortcut.${/^[a-z]/.test(slug) ? slug : `m_${slug}`}`;
}
