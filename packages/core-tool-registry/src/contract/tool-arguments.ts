import { ToolError, ToolErrorCode } from './tool-error.js';

type Json = unknown;

/**
 * A typed reader over raw arguments. A missing or mistyped field throws a {@link ToolError} with
 * INVALID_ARGUMENT naming the field path, which the executor returns to the model.
 */
export class ToolArguments {
  readonly #raw: Record<string, Json>;

  constructor(raw: unknown) {
    this.#raw =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw)
        ? (raw as Record<string, Json>)
        : {};
  }

  /** The raw argument object. */
  get raw(): Readonly<Record<string, Json>> {
    return this.#raw;
  }

  /** Whether a field (dotted path) is present and not null. */
  has(path: string): boolean {
    const value = this.#lookup(path);
    return value !== undefined && value !== null;
  }

  /** A required string. */
  string(path: string): string {
    return this.#required(path, 'string', (value) => typeof value === 'string') as string;
  }

  /** An optional string; `fallback` when absent. */
  optionalString(path: string, fallback?: string): string | undefined {
    return this.#optional(path, 'string', (value) => typeof value === 'string', fallback) as
      | string
      | undefined;
  }

  /** A required finite number. */
  number(path: string): number {
    return this.#required(path, 'number', isFiniteNumber) as number;
  }

  /** An optional finite number. */
  optionalNumber(path: string, fallback?: number): number | undefined {
    return this.#optional(path, 'number', isFiniteNumber, fallback) as number | undefined;
  }

  /** A required integer. */
  integer(path: string): number {
    return this.#required(path, 'integer', Number.isInteger) as number;
  }

  /** A required boolean. */
  boolean(path: string): boolean {
    return this.#required(path, 'boolean', (value) => typeof value === 'boolean') as boolean;
  }

  /** An optional boolean. */
  optionalBoolean(path: string, fallback?: boolean): boolean | undefined {
    return this.#optional(path, 'boolean', (value) => typeof value === 'boolean', fallback) as
      | boolean
      | undefined;
  }

  /** A required array. */
  array(path: string): readonly Json[] {
    return this.#required(path, 'array', Array.isArray) as Json[];
  }

  /** A required plain object. */
  object(path: string): Readonly<Record<string, Json>> {
    return this.#required(path, 'object', isPlainObject) as Record<string, Json>;
  }

  /** A required string that must be one of `values`. */
  oneOf<const V extends string>(path: string, values: readonly V[]): V {
    const value = this.string(path);
    if (!values.includes(value as V)) {
      throw invalid(path, `expected one of ${values.join(', ')}, received "${value}"`);
    }
    return value as V;
  }

  #lookup(path: string): Json {
    let current: Json = this.#raw;
    for (const segment of path.split('.')) {
      if (typeof current !== 'object' || current === null) return undefined;
      current = (current as Record<string, Json>)[segment];
    }
    return current;
  }

  #required(path: string, expected: string, check: (value: Json) => boolean): Json {
    const value = this.#lookup(path);
    if (value === undefined || value === null)
      throw invalid(path, `required (expected ${expected})`);
    if (!check(value)) throw invalid(path, `expected ${expected}, received ${describeType(value)}`);
    return value;
  }

  #optional(path: string, expected: string, check: (value: Json) => boolean, fallback: Json): Json {
    const value = this.#lookup(path);
    if (value === undefined || value === null) return fallback;
    if (!check(value)) throw invalid(path, `expected ${expected}, received ${describeType(value)}`);
    return value;
  }
}

function invalid(path: string, problem: string): ToolError {
  return new ToolError(ToolErrorCode.INVALID_ARGUMENT, `${path}: ${problem}`, { field: path });
}

function isFiniteNumber(value: Json): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function isPlainObject(value: Json): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names a JSON value's type the way validation messages do. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
