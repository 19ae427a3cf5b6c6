import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { type ToolFailure, ToolSchema } from '@toolsys/core-tool-registry';

/** Decides "valid" without the full validator for the simplest schemas; false: ask the validator. */
type QuickCheck = (args: Record<string, unknown>) => boolean;

interface Entry {
  readonly schema: ToolSchema<Record<string, unknown>>;
  readonly quick: QuickCheck | undefined;
}

/**
 * Imported validators of remote tools' input schemas, built once per catalog entry. Schemas are
 * imported leniently (`ToolSchema.fromRendered`): a schema that cannot be understood is not
 * enforced rather than blocking the tool.
 */
export class RemoteSchemaCache {
  readonly #entries = new WeakMap<Tool, Entry>();

  /** The validator of a remote tool. */
  get(tool: Tool): ToolSchema<Record<string, unknown>> {
    return this.#entry(tool).schema;
  }

  /**
   * Checks arguments against a remote tool's input schema: undefined when they conform, else the
   * validator's INVALID_ARGUMENT failure. Flat schemas of plain typed fields (the common case) are
   * accepted by a precompiled check that only ever says "valid" where the validator would;
   * anything else, and every failure, goes through the validator itself.
   */
  check(tool: Tool, args: Record<string, unknown>): ToolFailure | undefined {
    const entry = this.#entry(tool);
    if (entry.quick?.(args)) return undefined;
    const parsed = entry.schema.parse(args);
    return parsed.ok ? undefined : parsed.failure;
  }

  #entry(tool: Tool): Entry {
    let entry = this.#entries.get(tool);
    if (!entry) {
      entry = {
        schema: ToolSchema.fromRendered(tool.inputSchema),
        quick: compileQuickCheck(tool.inputSchema),
      };
      this.#entries.set(tool, entry);
    }
    return entry;
  }
}

const ROOT_KEYS = new Set(['type', 'properties', 'required', 'description', 'title', '$schema']);
const FIELD_KEYS = new Set(['type', 'description', 'title']);
const FIELD_TESTS: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (value) => typeof value === 'string',
  boolean: (value) => typeof value === 'boolean',
  // The validator takes finite numbers, and safe integers for `integer`.
  number: (value) => Number.isFinite(value),
  integer: (value) => Number.isSafeInteger(value),
};

/**
 * A check for `{type: 'object', properties: {name: {type: 'string' | 'boolean' | 'number' |
 * 'integer'}}, required: [...]}` (annotations allowed, unknown argument fields tolerated as the
 * lenient import does); undefined for any schema using anything else.
 */
export function compileQuickCheck(schema: unknown): QuickCheck | undefined {
  if (!isPlainObject(schema) || schema.type !== 'object') return undefined;
  for (const key of Object.keys(schema)) if (!ROOT_KEYS.has(key)) return undefined;
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties)) return undefined;
  const required = schema.required ?? [];
  if (!Array.isArray(required)) return undefined;
  const fields: { name: string; test: (value: unknown) => boolean; required: boolean }[] = [];
  for (const [name, field] of Object.entries(properties)) {
    if (name === '__proto__' || !isPlainObject(field)) return undefined;
    for (const key of Object.keys(field)) if (!FIELD_KEYS.has(key)) return undefined;
    const test = typeof field.type === 'string' ? FIELD_TESTS[field.type] : undefined;
    if (!test || !Object.hasOwn(FIELD_TESTS, field.type as string)) return undefined;
    fields.push({ name, test, required: required.includes(name) });
  }
  for (const name of required) {
    if (typeof name !== 'string' || !Object.hasOwn(properties, name)) return undefined;
  }
  return (args) => {
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
    for (const field of fields) {
      const value = args[field.name];
      if (value === undefined ? field.required : !field.test(value)) return false;
    }
    return true;
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
