// `json_transform`: a pipeline of get/pick/filter/map/sort/unique/slice operations on JSON.
import {
  type AnyToolDefinition,
  defineTool,
  describeType,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  type ToolResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { assertJsonTextDepth, JSON_DOCUMENT_ARGUMENT_LIMITS } from '../structured/json-depth.js';

/** Described once, on `operations`: repeated in every operation it would cost tokens five times. */
const pathSchema = z.string();

const operationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('get'), path: pathSchema }).describe('Value at path.'),
  z
    .object({
      op: z.literal('pick'),
      fields: z.array(z.string()).min(1).describe('Keys to keep.'),
    })
    .describe('Keep these keys.'),
  z
    .object({
      op: z.literal('filter'),
      path: pathSchema,
      cmp: z
        .enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists'])
        .describe('Comparison.'),
      value: z.unknown().optional().describe('Compared value.'),
    })
    .describe('Keep matching elements.'),
  z.object({ op: z.literal('map'), path: pathSchema }).describe('Map to path.'),
  z
    .object({
      op: z.literal('sort'),
      path: pathSchema.optional(),
      order: z.enum(['asc', 'desc']).default('asc').describe('Order.'),
    })
    .describe('Sort by path.'),
  z.object({ op: z.literal('unique'), path: pathSchema.optional() }).describe('Drop repeats.'),
  z
    .object({
      op: z.literal('slice'),
      start: z.number().int().default(0).describe('First index.'),
      end: z.number().int().optional().describe('End index (exclusive).'),
    })
    .describe('Array range.'),
]);

type Operation = z.infer<typeof operationSchema>;

const MAX_JSON_OUTPUT = 100_000;

/** The `json_transform` tool. */
export function createJsonTransformTool(): AnyToolDefinition {
  return defineTool({
    id: 'json_transform',
    description:
      'Reshapes JSON with operations applied in order: get, pick, filter, map, sort, unique, slice.',
    inputSchema: ToolSchema.object({
      input: z.unknown().describe('JSON value or text.'),
      operations: z
        .array(operationSchema)
        .max(32)
        .describe('Operations; path is dotted, e.g. "items.0.name".'),
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

/** `json_transform` alone, for the CPU tool pool's workers (which need none of the other tools). */
export function createJsonTransformTools(): AnyToolDefinition[] {
  return [createJsonTransformTool()];
}
