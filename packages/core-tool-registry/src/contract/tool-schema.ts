import { z } from 'zod';
import { compileFastAcceptor, type FastAcceptor } from './schema-fast-path.js';
import { ToolErrorCode } from './tool-error.js';
import { failureResult, type ToolFailure } from './tool-result.js';

/** A JSON Schema object as sent to models and MCP clients. */
export type JsonSchema = { readonly [key: string]: unknown };

/** The outcome of validating arguments against a {@link ToolSchema}. */
export type SchemaParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly failure: ToolFailure };

/** Options for {@link ToolSchema.object}. */
export interface ToolSchemaObjectOptions {
  /** Describes the whole argument object. */
  description?: string;
}

/**
 * A tool's argument schema. One declaration is both the validator and the rendered JSON Schema,
 * so the two cannot drift. Unknown argument fields are tolerated; declared constraints are enforced.
 */
export class ToolSchema<T = Record<string, unknown>> {
  /** Whether calls are validated; false only for a rendered schema that could not be imported. */
  readonly isValidated: boolean;
  /**
   * The argument names a tool built with {@link ToolSchema.object} declares: any other name reaches
   * its handler unread, so the executor tells the model it was ignored. Undefined for imported and
   * custom schemas, whose handlers (a remote server, a wrapped function) may read any name.
   */
  readonly declaredFields: ReadonlySet<string> | undefined;
  readonly #validator: z.ZodType<T> | undefined;
  /** Rendered on first read: a tool nobody lists (its package is off) never pays for it. */
  #jsonSchema: JsonSchema | undefined;
  /** Compiled on first use; null when the schema has no fast path. */
  #fast: FastAcceptor<T> | null | undefined;

  private constructor(
    jsonSchema: JsonSchema | undefined,
    validator: z.ZodType<T> | undefined,
    declaredFields?: ReadonlySet<string>,
  ) {
    this.#jsonSchema = jsonSchema;
    this.#validator = validator;
    this.isValidated = validator !== undefined;
    this.declaredFields = declaredFields;
  }

  /** The rendered JSON Schema (draft 2020-12, always `type: object` at the top). */
  get jsonSchema(): JsonSchema {
    if (this.#jsonSchema === undefined && this.#validator) {
      this.#jsonSchema = renderJsonSchema(this.#validator);
    }
    return this.#jsonSchema ?? { type: 'object' };
  }

  /** Declares an argument object from zod fields; unknown fields pass through untouched. */
  static object<S extends z.ZodRawShape>(
    shape: S,
    options: ToolSchemaObjectOptions = {},
  ): ToolSchema<z.output<z.ZodObject<S, z.core.$loose>>> {
    let schema = z.looseObject(shape);
    if (options.description) schema = schema.describe(options.description);
    return new ToolSchema(undefined, schema, new Set(Object.keys(shape)));
  }

  /** Wraps any zod schema whose input is an object. */
  static fromZod<T>(schema: z.ZodType<T>): ToolSchema<T> {
    return new ToolSchema<T>(undefined, schema);
  }

  /** A schema for tools without arguments. */
  static empty(): ToolSchema<Record<string, unknown>> {
    return ToolSchema.object({});
  }

  /**
   * Imports a hand-written JSON Schema leniently. When it cannot be understood the tool still
   * registers: the schema is rendered as given (or as an open object) and calls are not validated.
   * Its regular expressions (`pattern`, `patternProperties`) are shown to the model but not
   * enforced: a schema from outside (a remote MCP server, a skill file) could hold a pattern that
   * backtracks for minutes on a crafted argument, on the thread every session shares.
   */
  static fromRendered(json: unknown): ToolSchema<Record<string, unknown>> {
    const rendered = normaliseRendered(json);
    if (!rendered) return new ToolSchema<Record<string, unknown>>({ type: 'object' }, undefined);
    try {
      const enforced = withoutPatterns(rendered, 0);
      const validator = z.fromJSONSchema(enforced as Parameters<typeof z.fromJSONSchema>[0]);
      const lenient =
        validator instanceof z.ZodObject ? (validator as z.ZodObject).loose() : validator;
      return new ToolSchema(rendered, lenient as z.ZodType<Record<string, unknown>>);
    } catch {
      // Keep a well-formed object schema for the model even when it cannot be enforced; anything
      // else is replaced by an open object so MCP clients still accept the tool.
      const keep = rendered.type === 'object' && rendered.$ref === undefined;
      return new ToolSchema<Record<string, unknown>>(
        keep ? rendered : { type: 'object' },
        undefined,
      );
    }
  }

  /**
   * Whether valid arguments skip zod's walk through a precompiled acceptor (plain fields, bounds,
   * optionals, defaults, arrays, records). Diagnostic only: results are the same either way.
   */
  get hasFastPath(): boolean {
    const validator = this.#validator;
    if (this.#fast === undefined && validator) this.#compileFast(validator);
    return Boolean(this.#fast);
  }

  #compileFast(validator: z.ZodType<T>): FastAcceptor<T> | null {
    this.#fast = compileFastAcceptor(validator) ?? null;
    return this.#fast;
  }

  /** Validates raw arguments; a failure is INVALID_ARGUMENT naming the first field at fault. */
  parse(input: unknown): SchemaParseResult<T> {
    const validator = this.#validator;
    if (!validator) return { ok: true, value: input as T };
    // Arguments the precompiled acceptor vouches for get zod's output without zod's walk; anything
    // else (and every failure, with its wording) goes through zod.
    const fast = this.#fast === undefined ? this.#compileFast(validator) : this.#fast;
    if (fast) {
      const value = fast(input);
      if (value !== undefined) return { ok: true, value };
    }
    const parsed = validator.safeParse(input);
    if (parsed.success) return { ok: true, value: parsed.data };
    return { ok: false, failure: describeIssues(parsed.error.issues) };
  }
}

function renderJsonSchema(schema: z.ZodType): JsonSchema {
  const rendered = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return tidy(rendered) as JsonSchema;
}

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * Drops rendering noise that models do not need: `$schema`, open `additionalProperties`, safe-int
 * bounds, and `propertyNames: {type: "string"}` (every JSON object key is a string). Names inside
 * `properties` are argument names, never keywords, and are all kept.
 */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if (key === 'additionalProperties' && isEmptyObject(value)) continue;
    if (key === 'propertyNames' && isPlainStringSchema(value)) continue;
    if ((key === 'minimum' || key === 'maximum') && SAFE_INTEGER_BOUNDS.has(value as number)) {
      continue;
    }
    out[key] = key === 'properties' ? tidyProperties(value) : tidy(value);
  }
  return out;
}

/** Tidies each argument's schema of a `properties` map, keeping every argument name. */
function tidyProperties(properties: unknown): unknown {
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    return tidy(properties);
  }
  return Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name, tidy(schema)]),
  );
}

function isPlainStringSchema(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    (value as { type?: unknown }).type === 'string'
  );
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

/** Keywords whose value is a map from names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is a subschema or a list of subschemas. */
const SCHEMA_SLOTS = new Set([
  'items',
  'additionalItems',
  'prefixItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]);
/** Deeper schemas are not imported for validation (the walk and zod's stay shallow). */
const MAX_IMPORTED_DEPTH = 64;

/**
 * A copy of a JSON Schema without its regular expressions (`pattern`, `patternProperties`), for
 * the validator only. Throws past {@link MAX_IMPORTED_DEPTH}, which leaves the schema unvalidated.
 */
function withoutPatterns(node: unknown, depth: number): unknown {
  if (depth > MAX_IMPORTED_DEPTH) throw new Error('schema nested too deeply to import');
  if (Array.isArray(node)) return node.map((item) => withoutPatterns(item, depth + 1));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  // Names matched by a pattern are then allowed as any other extra property would be.
  const hasPatternProperties = Object.hasOwn(node, 'patternProperties');
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof value === 'string') continue;
    if (key === 'patternProperties') continue;
    if (
      hasPatternProperties &&
      (key === 'additionalProperties' || key === 'unevaluatedProperties')
    ) {
      continue;
    }
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      const map: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(value)) {
        map[name] = withoutPatterns(schema, depth + 1);
      }
      out[key] = map;
    } else if (SCHEMA_SLOTS.has(key)) {
      out[key] = withoutPatterns(value, depth + 1);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function normaliseRendered(json: unknown): JsonSchema | undefined {
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const schema = { ...(value as Record<string, unknown>) };
  if (schema.type === undefined && schema.properties !== undefined) schema.type = 'object';
  return schema;
}

/** Turns zod issues into one INVALID_ARGUMENT failure naming the first path. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): ToolFailure {
  const described = issues.map((issue) => ({
    field: formatPath(issue.path),
    problem: describeIssue(issue),
  }));
  const first = described[0] ?? { field: '', problem: 'invalid arguments' };
  const message = described
    .slice(0, 5)
    .map(({ field, problem }) => (field ? `${field}: ${problem}` : problem))
    .join('; ');
  return failureResult(ToolErrorCode.INVALID_ARGUMENT, message, {
    ...(first.field ? { field: first.field } : {}),
    details: { issues: described },
  });
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const text = issue.message.replace(/^Invalid input: /, '');
  if (issue.code === 'invalid_type' && /received undefined$/.test(text)) {
    return `required (${text.replace(/, received undefined$/, '')})`;
  }
  if (issue.code === 'unrecognized_keys') return text;
  return text;
}

/** Formats a path as dotted segments: `steps.2.args.path`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join('.');
}
