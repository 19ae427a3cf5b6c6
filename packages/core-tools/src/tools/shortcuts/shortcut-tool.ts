import { createHash } from 'node:crypto';
import type { ToolAnnotations, ToolBatchRunner, ToolRegistry } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  defineTool,
  nestedCallOptions,
  RunPolicies,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { principalOfKey } from '../defined-by.js';
import {
  renderShortcutSteps,
  type ShortcutDefinition,
  type ShortcutParam,
} from './shortcut-definition.js';

/** Options for {@link compileShortcut}. */
export interface CompileShortcutOptions {
  /** Runs the rendered steps (each step passes the executor's gates). */
  runner: ToolBatchRunner;
  /** Registry the step tools' annotations are read from (missing tools count as unsafe). */
  registry: ToolRegistry;
  /**
   * The principal key of the shortcut's definer: only that principal sees and calls it, and its
   * steps' tools are looked up as that principal sees them.
   */
  definedBy: string;
}

/**
 * The revision of a shortcut: a digest of its whole definition, the same on every replica that
 * loads it. Permission grants name it, so redefining a shortcut with other steps asks again.
 */
export function shortcutRevision(definition: ShortcutDefinition): string {
  return createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 16);
}

/**
 * Turns a shortcut into a first-class tool: its parameters become the input schema, its risk is the
 * worst risk of its steps, its annotations combine theirs, and calling it runs the steps as a batch.
 */
export function compileShortcut(
  definition: ShortcutDefinition,
  options: CompileShortcutOptions,
): AnyToolDefinition {
  const shape: Record<string, z.ZodType> = {};
  for (const param of definition.params) shape[param.name] = paramSchema(param);
  const preconditions =
    definition.preconditions.length > 0
      ? ` Preconditions: ${definition.preconditions.join('; ')}.`
      : '';
  return defineTool({
    id: definition.id,
    description: `${definition.description}${preconditions} Shortcut of ${definition.steps.length} step${definition.steps.length === 1 ? '' : 's'}: ${definition.steps.map((step) => step.tool).join(' → ')}.`,
    inputSchema: ToolSchema.object(shape),
    metadata: {
      category: 'orchestration',
      risk: definition.risk,
      tags: ['shortcut'],
      annotations: combineAnnotations(definition, options.registry, options.definedBy),
    },
    runPolicy: RunPolicies.legacy,
    // A grant given for these steps never covers a redefinition with other steps.
    revision: shortcutRevision(definition),
    definedBy: options.definedBy,
    async execute(args, context) {
      const rendered = renderShortcutSteps(definition, args as Record<string, unknown>);
      if (!rendered.ok) return rendered.failure;
      return options.runner.run(rendered.steps, {
        ...nestedCallOptions(context),
        fieldPrefix: `${definition.id}.steps`,
      });
    },
  });
}

function paramSchema(param: ShortcutParam): z.ZodType {
  let schema: z.ZodType;
  switch (param.type) {
    case 'string':
      schema = z.string();
      break;
    case 'number':
      schema = z.number();
      break;
    case 'integer':
      schema = z.number().int();
      break;
    case 'boolean':
      schema = z.boolean();
      break;
  }
  if (param.description) schema = schema.describe(param.description);
  return param.default === undefined ? schema : schema.default(param.default as never);
}

function combineAnnotations(
  definition: ShortcutDefinition,
  registry: ToolRegistry,
  definedBy: string,
): ToolAnnotations {
  const definer = principalOfKey(definedBy);
  const steps = definition.steps.map(
    (step) => registry.get(step.tool, definer)?.metadata.annotations,
  );
  const all = (pick: (a: ToolAnnotations) => boolean) =>
    steps.every((a) => a !== undefined && pick(a));
  const any = (pick: (a: ToolAnnotations) => boolean) =>
    steps.some((a) => a === undefined || pick(a));
  const readOnly = all((a) => a.readOnlyHint);
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && any((a) => a.destructiveHint),
    idempotentHint: all((a) => a.idempotentHint),
    openWorldHint: any((a) => a.openWorldHint),
    sensitiveAction: definition.risk === 'HIGH' || any((a) => a.sensitiveAction),
  };
}
