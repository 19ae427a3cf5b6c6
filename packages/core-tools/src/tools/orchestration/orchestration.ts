import type { ToolExecutor } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  cancelledFailure,
  DEFAULT_BATCH_BUDGET_MS,
  defineTool,
  describeType,
  failureResult,
  MAX_BATCH_BUDGET_MS,
  maxRisk,
  nestedCallOptions,
  RunPolicies,
  SYSTEM_CLOCK,
  sleep,
  successResult,
  TOOL_RISKS,
  ToolBatchRunner,
  type ToolClock,
  ToolErrorCode,
  ToolHints,
  type ToolResult,
  type ToolRisk,
  type ToolRunPolicy,
  ToolSchema,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { lazyModule } from '@toolsys/platform';
import { z } from 'zod';
import {
  parseShortcutDefinition,
  type ShortcutDefinition,
} from '../shortcuts/shortcut-definition.js';
import { ShortcutStore } from '../shortcuts/shortcut-store.js';
import { ShortcutSuggester } from '../shortcuts/shortcut-suggester.js';
import { compileShortcut } from '../shortcuts/shortcut-tool.js';
import { assertJsonTextDepth, JSON_DOCUMENT_ARGUMENT_LIMITS } from '../structured/json-depth.js';

const semver = lazyModule<typeof import('semver')>('semver');

/** Options for {@link createOrchestrationTools}. */
export interface OrchestrationToolsOptions {
  /** Executor that batch steps and shortcut steps run through (every step passes the same gates). */
  executor: ToolExecutor;
  /** Directory defined shortcuts are persisted in. */
  shortcutDirectory: string;
  /** Trace recorder the shortcut suggester mines; default: the executor's, when it has one. */
  traces?: ToolTraceRecorder;
  /** Clock for `wait` and batch budgets. Default: the system clock. */
  clock?: ToolClock;
}

/** The longest `wait`, in seconds. */
export const MAX_WAIT_SECONDS = 300;

const WAIT_POLICY: ToolRunPolicy = {
  name: 'wait',
  timeoutMs: (MAX_WAIT_SECONDS + 10) * 1000,
  maxRetries: 0,
  backoffBaseMs: 0,
  backoffMaxMs: 0,
};

/**
 * `wait`, `json_transform`, `version_compare`, `tool_batch_run` and the shortcut tools, plus one
 * tool per shortcut persisted in `shortcutDirectory` (registered again at start).
 */
export function createOrchestrationTools(options: OrchestrationToolsOptions): AnyToolDefinition[] {
  const { executor } = options;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const runner = new ToolBatchRunner({ executor, clock });
  const store = new ShortcutStore(options.shortcutDirectory);
  const traces =
    options.traces ??
    ((executor as { traces?: unknown }).traces instanceof ToolTraceRecorder
      ? ((executor as { traces?: unknown }).traces as ToolTraceRecorder)
      : undefined);
  return [
    createWaitTool(clock),
    createJsonTransformTool(),
    createVersionCompareTool(),
    createBatchTool(runner),
    createShortcutDefineTool(executor, runner, store),
    createShortcutListTool(executor, traces),
    createShortcutRunTool(executor),
    ...loadPersistedShortcuts(executor, runner, store),
  ];
}

/** `json_transform` alone, for the CPU tool pool's workers (which need none of the other tools). */
export function createJsonTransformTools(): AnyToolDefinition[] {
  return [createJsonTransformTool()];
}

function createWaitTool(clock: ToolClock): AnyToolDefinition {
  return defineTool({
    id: 'wait',
    description: `Pauses for a number of seconds (at most ${MAX_WAIT_SECONDS}), e.g. to let a page, a device or a background job settle before the next step. Ends early, with an error, when the call is cancelled. Prefer a tool's own wait option (terminal.wait) when it has one.`,
    inputSchema: ToolSchema.object({
      seconds: z
        .number()
        .positive()
        .max(MAX_WAIT_SECONDS)
        .describe(`How long to wait, in seconds (fractions allowed, at most ${MAX_WAIT_SECONDS}).`),
      reason: z.string().max(200).optional().describe('Why, shown in progress output.'),
    }),
    metadata: {
      category: 'orchestration',
      risk: 'LOW',
      annotations: ToolHints.readOnly,
    },
    runPolicy: WAIT_POLICY,
    async execute({ seconds, reason }, context) {
      context.emit({
        type: 'progress',
        progress: 0,
        total: seconds,
        message: reason ? `waiting: ${reason}` : 'waiting',
      });
      const completed = await sleep(clock, seconds * 1000, context.signal);
      if (!completed) return cancelledFailure(context.signal);
      context.emit({ type: 'progress', progress: seconds, total: seconds });
      return successResult(`Waited ${seconds} s.`, { data: { seconds } });
    },
  });
}

const pathSchema = z
  .string()
  .describe('Dotted path into the value: "items.0.name"; "" is the value itself.');

const operationSchema = z.discriminatedUnion('op', [
  z
    .object({ op: z.literal('get'), path: pathSchema })
    .describe('Replace the value by the value at path.'),
  z
    .object({
      op: z.literal('pick'),
      fields: z.array(z.string()).min(1).describe('Keys to keep.'),
    })
    .describe('Keep only these keys (of the object, or of every object in the array).'),
  z
    .object({
      op: z.literal('filter'),
      path: pathSchema,
      cmp: z
        .enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists'])
        .describe('Comparison of the element value at path with value.'),
      value: z.unknown().optional().describe('Value compared with (not needed for exists).'),
    })
    .describe('Keep array elements whose value at path matches.'),
  z
    .object({ op: z.literal('map'), path: pathSchema })
    .describe('Replace every array element by its value at path.'),
  z
    .object({
      op: z.literal('sort'),
      path: pathSchema.optional(),
      order: z.enum(['asc', 'desc']).default('asc').describe('Sort order.'),
    })
    .describe('Sort the array by the value at path (numbers numerically, the rest as text).'),
  z
    .object({ op: z.literal('unique'), path: pathSchema.optional() })
    .describe('Drop array elements whose value at path was seen before.'),
  z
    .object({
      op: z.literal('slice'),
      start: z.number().int().default(0).describe('First index (negative counts from the end).'),
      end: z.number().int().optional().describe('Index after the last (default: the end).'),
    })
    .describe('Keep a range of the array.'),
]);

type Operation = z.infer<typeof operationSchema>;

const MAX_JSON_OUTPUT = 100_000;

function createJsonTransformTool(): AnyToolDefinition {
  return defineTool({
    id: 'json_transform',
    description:
      'Transforms JSON with a jq-style pipeline of operations applied in order: get (path), pick (keys), filter (path cmp value), map (path), sort (path, order), unique (path), slice (start, end). Returns the resulting JSON. Use json_path for JSONPath queries and csv_query for tables.',
    inputSchema: ToolSchema.object({
      input: z
        .unknown()
        .describe('The JSON value, or JSON text (a string that parses as JSON is parsed first).'),
      operations: z.array(operationSchema).max(32).describe('Operations applied left to right.'),
    }),
    metadata: { category: 'data', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    argumentLimits: JSON_DOCUMENT_ARGUMENT_LIMITS,
    execute({ input, operations }) {
      if (input === undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'input: required (a JSON value or JSON text)',
          {
            field: 'input',
          },
        );
      }
      let value: unknown = input;
      if (typeof value === 'string') {
        assertJsonTextDepth(value, 'input');
        try {
          value = JSON.parse(value);
        } catch {
          // A plain string is a JSON value too.
        }
      }
      for (const [index, operation] of operations.entries()) {
        const applied = applyOperation(value, operation as Operation, `operations.${index}`);
        if (!applied.ok) return applied.failure;
        value = applied.value;
      }
      const text = JSON.stringify(value, null, 2) ?? 'null';
      const content =
        text.length > MAX_JSON_OUTPUT
          ? `${text.slice(0, MAX_JSON_OUTPUT)}\n… (truncated; ${text.length} characters in all — add slice or pick to narrow it)`
          : text;
      return successResult(content, { data: { result: value } });
    },
  });
}

type Applied = { ok: true; value: unknown } | { ok: false; failure: ToolResult };

function applyOperation(value: unknown, operation: Operation, field: string): Applied {
  const needArray = (): Applied | undefined =>
    Array.isArray(value)
      ? undefined
      : fail(
          field,
          `${operation.op} needs an array, the value here is ${describeType(value)}; use get first`,
        );
  switch (operation.op) {
    case 'get': {
      const found = readPath(value, operation.path);
      if (!found.found)
        return fail(`${field}.path`, `"${operation.path}" does not exist in the value`);
      return { ok: true, value: found.value };
    }
    case 'pick': {
      const pick = (item: unknown) =>
        typeof item === 'object' && item !== null && !Array.isArray(item)
          ? Object.fromEntries(
              operation.fields
                .filter((key) => key in item)
                .map((key) => [key, (item as Record<string, unknown>)[key]]),
            )
          : item;
      return { ok: true, value: Array.isArray(value) ? value.map(pick) : pick(value) };
    }
    case 'filter':
      return (
        needArray() ?? {
          ok: true,
          value: (value as unknown[]).filter((item) =>
            compare(readPath(item, operation.path), operation.cmp, operation.value),
          ),
        }
      );
    case 'map':
      return (
        needArray() ?? {
          ok: true,
          value: (value as unknown[]).map((item) => readPath(item, operation.path).value ?? null),
        }
      );
    case 'sort': {
      const bad = needArray();
      if (bad) return bad;
      const keyOf = (item: unknown) => readPath(item, operation.path ?? '').value;
      const sorted = [...(value as unknown[])].sort((a, b) => orderValues(keyOf(a), keyOf(b)));
      return { ok: true, value: operation.order === 'desc' ? sorted.reverse() : sorted };
    }
    case 'unique': {
      const bad = needArray();
      if (bad) return bad;
      const seen = new Set<string>();
      return {
        ok: true,
        value: (value as unknown[]).filter((item) => {
          const key = JSON.stringify(readPath(item, operation.path ?? '').value) ?? 'undefined';
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        }),
      };
    }
    case 'slice':
      return (
        needArray() ?? {
          ok: true,
          value: (value as unknown[]).slice(operation.start, operation.end),
        }
      );
  }
}

function fail(field: string, problem: string): Applied {
  return {
    ok: false,
    failure: failureResult(ToolErrorCode.INVALID_ARGUMENT, `${field}: ${problem}`, {
      field,
      hint: 'Fix this operation (check the shape of the value with a shorter pipeline first) and retry.',
    }),
  };
}

function readPath(value: unknown, path: string): { found: boolean; value: unknown } {
  if (path === '') return { found: true, value };
  let current = value;
  for (const segment of path.split('.')) {
    if (Array.isArray(current) && /^-?\d+$/.test(segment)) {
      const index = Number(segment);
      const resolved = index < 0 ? current.length + index : index;
      if (resolved < 0 || resolved >= current.length) return { found: false, value: undefined };
      current = current[resolved];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: current };
}

function compare(
  found: { found: boolean; value: unknown },
  cmp: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains' | 'exists',
  expected: unknown,
): boolean {
  const actual = found.value;
  switch (cmp) {
    case 'exists':
      return found.found && actual !== null;
    case 'eq':
      return JSON.stringify(actual) === JSON.stringify(expected);
    case 'ne':
      return JSON.stringify(actual) !== JSON.stringify(expected);
    case 'contains':
      if (typeof actual === 'string')
        return typeof expected === 'string' && actual.includes(expected);
      if (Array.isArray(actual))
        return actual.some((item) => JSON.stringify(item) === JSON.stringify(expected));
      return false;
    case 'gt':
      return found.found && orderValues(actual, expected) > 0;
    case 'gte':
      return found.found && orderValues(actual, expected) >= 0;
    case 'lt':
      return found.found && orderValues(actual, expected) < 0;
    case 'lte':
      return found.found && orderValues(actual, expected) <= 0;
  }
}

function orderValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : 1;
  if (b === undefined || b === null) return -1;
  const left = typeof a === 'string' ? a : JSON.stringify(a);
  const right = typeof b === 'string' ? b : JSON.stringify(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function createVersionCompareTool(): AnyToolDefinition {
  return defineTool({
    id: 'version_compare',
    description:
      'Compares two versions by Semantic Versioning 2.0 precedence (1.10.0 > 1.9.0, 1.0.0-rc.1 < 1.0.0) and names the largest part that differs. Optionally checks a version against a range such as "^1.2.0" or ">=2 <3". Use string_distance for fuzzy text comparison.',
    inputSchema: ToolSchema.object({
      a: z.string().min(1).max(256).describe('First version, e.g. "1.2.3" or "v2.0.0-beta.1".'),
      b: z.string().min(1).max(256).describe('Second version.'),
      range: z
        .string()
        .max(256)
        .optional()
        .describe('A SemVer range both versions are checked against, e.g. "^1.2.0".'),
      loose: z
        .boolean()
        .default(false)
        .describe('Accept near-SemVer such as "1.2" or "=1.2.3" by coercing it.'),
    }),
    metadata: { category: 'data', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute({ a, b, range, loose }) {
      const parse = (text: string, field: string) => {
        const parsed = loose
          ? (semver().coerce(text, { includePrerelease: true }) ?? null)
          : semver().parse(text);
        if (!parsed) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `${field}: "${text}" is not a SemVer version (MAJOR.MINOR.PATCH[-pre][+build])`,
            { field, hint: 'Pass a full version such as "1.2.3", or set loose: true for "1.2".' },
          );
        }
        return parsed;
      };
      const left = parse(a, 'a');
      if (!(left instanceof semver().SemVer)) return left;
      const right = parse(b, 'b');
      if (!(right instanceof semver().SemVer)) return right;
      const comparison = semver().compare(left, right);
      const difference = semver().diff(left, right);
      const symbol = comparison < 0 ? '<' : comparison > 0 ? '>' : '=';
      const lines = [
        `${left.version} ${symbol} ${right.version}${difference ? ` (${difference} differs)` : ''}`,
      ];
      const data: Record<string, unknown> = {
        a: left.version,
        b: right.version,
        comparison,
        difference,
      };
      if (range !== undefined) {
        const valid = semver().validRange(range, { loose });
        if (valid === null) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `range: "${range}" is not a SemVer range`,
            {
              field: 'range',
              hint: 'Use a range such as "^1.2.0", "~1.2", ">=1.0.0 <2.0.0" or "1.x".',
            },
          );
        }
        const satisfiesA = semver().satisfies(left, valid, { includePrerelease: true });
        const satisfiesB = semver().satisfies(right, valid, { includePrerelease: true });
        lines.push(`${left.version} ${satisfiesA ? 'satisfies' : 'does not satisfy'} ${range}`);
        lines.push(`${right.version} ${satisfiesB ? 'satisfies' : 'does not satisfy'} ${range}`);
        data.range = { range, a: satisfiesA, b: satisfiesB };
      }
      return successResult(lines.join('\n'), { data });
    },
  });
}

function createBatchTool(runner: ToolBatchRunner): AnyToolDefinition {
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
    metadata: { category: 'orchestration', risk: 'LOW', annotations: ToolHints.mutating },
    runPolicy: RunPolicies.legacy,
    execute({ steps, budgetMs }, context) {
      return runner.run(steps, { budgetMs, ...nestedCallOptions(context) });
    },
  });
}

function createShortcutDefineTool(
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

function createShortcutListTool(
  executor: ToolExecutor,
  traces: ToolTraceRecorder | undefined,
): AnyToolDefinition {
  const suggester = new ShortcutSuggester();
  return defineTool({
    id: 'shortcut_list',
    description:
      'Lists the defined shortcuts (id, parameters, steps, risk) and suggests new ones: pairs of tools that recently ran back to back successfully at least 3 times. Define a suggestion with shortcut_define.',
    inputSchema: ToolSchema.empty(),
    metadata: { category: 'orchestration', risk: 'LOW', annotations: ToolHints.readOnly },
    runPolicy: RunPolicies.quickRead,
    execute() {
      const shortcuts = executor.registry
        .list()
        .filter((tool) => tool.id.startsWith('shortcut.'))
        .map((tool) => ({
          id: tool.id,
          risk: tool.metadata.risk,
          description: tool.description,
          params: Object.keys(
            ((tool.inputSchema.jsonSchema as { properties?: object }).properties ?? {}) as object,
          ),
        }));
      const suggestions = traces ? suggester.suggest(traces.spans()) : [];
      const lines: string[] = [];
      if (shortcuts.length === 0) lines.push('No shortcuts defined yet.');
      else {
        lines.push(`${shortcuts.length} shortcut(s):`);
        for (const shortcut of shortcuts) {
          lines.push(
            `- ${shortcut.id} (${shortcut.risk}; params: ${shortcut.params.join(', ') || 'none'}): ${shortcut.description}`,
          );
        }
      }
      if (suggestions.length > 0) {
        lines.push('Suggested shortcuts (define with shortcut_define):');
        for (const suggestion of suggestions) {
          lines.push(
            `- ${suggestion.tools.join(' → ')} (ran back to back ${suggestion.count} times)`,
          );
        }
      }
      return successResult(lines.join('\n'), { data: { shortcuts, suggestions } });
    },
  });
}

function createShortcutRunTool(executor: ToolExecutor): AnyToolDefinition {
  return defineTool({
    id: 'shortcut_run',
    description:
      'Runs a defined shortcut by id with its parameters. Same as calling the shortcut tool directly; use it when your tool list does not show the shortcut yet. See shortcut_list for the defined ones.',
    inputSchema: ToolSchema.object({
      id: z.string().describe('The shortcut id, e.g. "shortcut.backup_notes".'),
      params: z
        .union([z.record(z.string(), z.unknown()), z.string()])
        .optional()
        .describe("The shortcut's parameters (an object, or JSON text)."),
    }),
    metadata: { category: 'orchestration', risk: 'LOW', annotations: ToolHints.mutating },
    runPolicy: RunPolicies.legacy,
    async execute({ id, params }, context) {
      if (!id.startsWith('shortcut.') || !executor.registry.has(id)) {
        const defined = executor.registry.ids().filter((known) => known.startsWith('shortcut.'));
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

function loadPersistedShortcuts(
  executor: ToolExecutor,
  runner: ToolBatchRunner,
  store: ShortcutStore,
): AnyToolDefinition[] {
  const tools: AnyToolDefinition[] = [];
  for (const raw of store.loadRaw().definitions) {
    const parsed = parseShortcutDefinition(raw, {
      registry: executor.registry,
      allowUnknownTools: true,
    });
    if (!parsed.ok) continue;
    const storedRisk = (raw as { risk?: unknown }).risk;
    const risks: ToolRisk[] = [
      parsed.definition.risk,
      ...parsed.definition.steps.map(
        // A step's tool may register later (another package): until then it counts as HIGH.
        (step) => executor.registry.get(step.tool)?.metadata.risk ?? 'HIGH',
      ),
    ];
    if (TOOL_RISKS.includes(storedRisk as ToolRisk)) risks.push(storedRisk as ToolRisk);
    const definition: ShortcutDefinition = { ...parsed.definition, risk: maxRisk(risks) };
    tools.push(compileShortcut(definition, { runner, registry: executor.registry }));
  }
  return tools;
}
