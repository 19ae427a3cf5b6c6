import type { AnyToolDefinition } from './tool.js';
import { argumentLimitFailure } from './tool-failures.js';
import type { ToolFailure } from './tool-result.js';

/** Bounds on the arguments of one call, checked before schema validation. */
export interface ToolArgumentLimits {
  /**
   * Characters in all strings and object keys together (a number, boolean or null counts 8).
   * Default: 1 MiB, or the largest `maxLength` the input schema declares plus 64 KiB when that is
   * larger (so content tools such as write_file get their declared size).
   */
  readonly maxCharacters: number;
  /** Object keys plus array elements, at every depth. Default 10,000. */
  readonly maxEntries: number;
  /** Nesting depth of objects and arrays (the argument object itself is depth 1). Default 64. */
  readonly maxDepth: number;
}

/** Limits a tool gets when it declares none. */
export const DEFAULT_ARGUMENT_LIMITS: ToolArgumentLimits = {
  maxCharacters: 1_048_576,
  maxEntries: 10_000,
  maxDepth: 64,
};

const SCALAR_WEIGHT = 8;
const SCHEMA_SLACK = 65_536;
const resolved = new WeakMap<object, ToolArgumentLimits>();

/** The limits that apply to a tool: its declared `argumentLimits` over the defaults. */
export function argumentLimitsOf(tool: AnyToolDefinition): ToolArgumentLimits {
  let limits = resolved.get(tool);
  if (limits === undefined) {
    const declaredLength = largestMaxLength(tool.inputSchema.jsonSchema, 0);
    limits = {
      ...DEFAULT_ARGUMENT_LIMITS,
      maxCharacters: Math.max(
        DEFAULT_ARGUMENT_LIMITS.maxCharacters,
        declaredLength === 0 ? 0 : declaredLength + SCHEMA_SLACK,
      ),
      ...tool.argumentLimits,
    };
    resolved.set(tool, limits);
  }
  return limits;
}

/**
 * Refuses arguments over the tool's {@link ToolArgumentLimits} with a non-retryable
 * INVALID_ARGUMENT naming the limit; undefined when they are within. Walks the value without
 * recursion and stops at the first limit passed, so the cost is bounded by the limits, not by the
 * input (150,000 extra keys or a 100,000-deep value are refused after the limit's worth of work).
 */
export function checkArgumentLimits(
  tool: AnyToolDefinition,
  args: Record<string, unknown>,
): ToolFailure | undefined {
  const limits = argumentLimitsOf(tool);
  const values: unknown[] = [args];
  const depths: number[] = [1];
  let characters = 0;
  let entries = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop() as number;
    if (typeof value === 'string') {
      characters += value.length;
    } else if (typeof value === 'object' && value !== null) {
      if (depth > limits.maxDepth) {
        return argumentLimitFailure(
          tool.id,
          `nested more than ${limits.maxDepth} levels deep (the depth limit of ${tool.id})`,
          'Flatten the value or send a smaller part of it.',
        );
      }
      if (Array.isArray(value)) {
        entries += value.length;
        if (entries > limits.maxEntries) break;
        for (let index = 0; index < value.length; index += 1) {
          values.push(value[index]);
          depths.push(depth + 1);
        }
      } else {
        const keys = Object.keys(value);
        entries += keys.length;
        if (entries > limits.maxEntries) break;
        for (const key of keys) {
          characters += key.length;
          values.push((value as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    } else {
      characters += SCALAR_WEIGHT;
    }
    if (characters > limits.maxCharacters) {
      return argumentLimitFailure(
        tool.id,
        `more than ${limits.maxCharacters} characters in all (the size limit of ${tool.id})`,
        'Send less text, or read large data from a file with a tool made for it.',
      );
    }
  }
  if (entries > limits.maxEntries) {
    return argumentLimitFailure(
      tool.id,
      `more than ${limits.maxEntries} keys and array elements in all (the key-count limit of ${tool.id})`,
      `Send only the fields ${tool.id} declares, and fewer elements.`,
    );
  }
  return undefined;
}

/** The largest `maxLength` anywhere in a JSON Schema (0 when none), looked for a few levels deep. */
function largestMaxLength(schema: unknown, depth: number): number {
  if (typeof schema !== 'object' || schema === null || depth > 6) return 0;
  let largest = 0;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'maxLength' && typeof value === 'number') largest = Math.max(largest, value);
    else if (typeof value === 'object')
      largest = Math.max(largest, largestMaxLength(value, depth + 1));
  }
  return largest;
}
