import { z } from 'zod';

/**
 * A precompiled acceptor for the argument objects zod would accept unchanged in meaning: it returns
 * exactly the value zod's parse would return (a fresh object, keys in zod's order, defaults
 * filled), or undefined when it is not sure, and the caller then asks zod itself. It never
 * rejects, so every failure and its wording still come from zod.
 *
 * Why: a zod parse walks generic machinery (payload objects, issue arrays, check lists) that is
 * cheap in a hot loop but costs several microseconds on a call that waits on real I/O in between,
 * which is every remote call. The acceptor touches little besides the arguments themselves.
 *
 * Only what can be mirrored exactly is compiled: objects (loose, strip, strict), strings with
 * length bounds, finite numbers with bounds and `int()`, booleans, enums, literals, unknown/any,
 * optional, nullable, default, arrays and string-keyed records of those. A schema using anything
 * else (refinements, transforms, formats, unions, coercion, pipes) gets no acceptor at all.
 */
export type FastAcceptor<T> = (input: unknown) => T | undefined;

/** Compiles the acceptor of a zod schema whose top level is an object; undefined when unsupported. */
export function compileFastAcceptor<T>(
  schema: z.ZodType<T>,
  compileOptions: FastAcceptorOptions = {},
): FastAcceptor<T> | undefined {
  const codegen = compileOptions.codegen ?? true;
  if (nodeOf(schema).def.type !== 'object') return undefined;
  let check: Check | undefined;
  try {
    check = compileNode(schema, 0, codegen);
  } catch {
    // An internal shape this version of zod does not have: no fast path, zod decides.
    return undefined;
  }
  if (!check) return undefined;
  const accept = check;
  return (input) => {
    const out = accept(input);
    return out === DECLINE ? undefined : (out as T);
  };
}

/** Options of {@link compileFastAcceptor}. */
export interface FastAcceptorOptions {
  /** Generate the object checks as code (default); false runs the same checks as closures. */
  codegen?: boolean;
}

/** A compiled node: the value zod would output for `value`, or DECLINE when unsure. */
type Check = (value: unknown) => unknown;

const DECLINE: unique symbol = Symbol('decline');
const MAX_DEPTH = 8;

/** zod's own internals of a schema or check (read-only; what this file relies on). */
interface ZodNode {
  readonly def: {
    readonly type?: string;
    readonly check?: string;
    readonly coerce?: boolean;
    readonly checks?: readonly { readonly _zod: ZodNode }[];
    readonly [key: string]: unknown;
  };
  readonly optin?: 'optional' | 'defaulted';
  readonly optout?: 'optional';
}

function nodeOf(schema: unknown): ZodNode {
  return (schema as { _zod: ZodNode })._zod;
}

/** The `when` zod gives its length checks by default; a check with any other `when` is declined. */
const DEFAULT_LENGTH_WHEN = nodeOf(nodeOf(z.string().min(1)).def.checks?.[0]).def.when;

interface Bounds {
  min: number;
  max: number;
  exact: number | undefined;
}

function compileNode(schema: unknown, depth: number, codegen: boolean): Check | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const node = nodeOf(schema);
  const def = node.def;
  if (def.coerce) return undefined;
  // A schema that is itself a check (`z.int()`, `z.email()`): only the integer format is mirrored.
  let integer = false;
  if (def.check !== undefined) {
    if (def.check !== 'number_format' || def.format !== 'safeint') return undefined;
    integer = true;
  }
  const checks = def.checks ?? [];
  switch (def.type) {
    case 'string': {
      const bounds = lengthBounds(checks);
      return (
        bounds &&
        ((value) => (typeof value === 'string' && fitsString(value, bounds) ? value : DECLINE))
      );
    }
    case 'number':
      return compileNumber(checks, integer);
    case 'boolean':
      return checks.length === 0
        ? (value) => (typeof value === 'boolean' ? value : DECLINE)
        : undefined;
    case 'unknown':
    case 'any':
      return checks.length === 0 ? identity : undefined;
    case 'enum':
    case 'literal': {
      const values = (schema as { _zod: { values?: ReadonlySet<unknown> } })._zod.values;
      if (checks.length > 0 || !values) return undefined;
      return (value) => (values.has(value) ? value : DECLINE);
    }
    case 'optional': {
      const inner = nodeOf(def.innerType);
      // An optional default substitutes on absence: not mirrored.
      if (checks.length > 0 || inner.optin === 'defaulted') return undefined;
      const check = compileNode(def.innerType, depth + 1, codegen);
      return check && ((value) => (value === undefined ? undefined : check(value)));
    }
    case 'nullable': {
      const check =
        checks.length === 0 ? compileNode(def.innerType, depth + 1, codegen) : undefined;
      return check && ((value) => (value === null ? null : check(value)));
    }
    case 'default': {
      const check =
        checks.length === 0 ? compileNode(def.innerType, depth + 1, codegen) : undefined;
      if (!check) return undefined;
      // zod reads the default afresh each time (a shallow clone, or the factory's result).
      return (value) => {
        if (value === undefined) return def.defaultValue;
        const out = check(value);
        return out === undefined ? def.defaultValue : out;
      };
    }
    case 'array':
      return compileArray(def.element, checks, depth, codegen);
    case 'record':
      return checks.length === 0 ? compileRecord(def, depth, codegen) : undefined;
    case 'object':
      return checks.length === 0 ? compileObject(def, depth, codegen) : undefined;
    default:
      return undefined;
  }
}

function identity(value: unknown): unknown {
  return value;
}

function lengthBounds(checks: readonly { readonly _zod: ZodNode }[]): Bounds | undefined {
  const bounds: Bounds = { min: 0, max: Number.POSITIVE_INFINITY, exact: undefined };
  for (const check of checks) {
    const def = check._zod.def;
    if (def.when !== DEFAULT_LENGTH_WHEN) return undefined;
    if (def.check === 'min_length') bounds.min = Math.max(bounds.min, def.minimum as number);
    else if (def.check === 'max_length') bounds.max = Math.min(bounds.max, def.maximum as number);
    else if (def.check === 'length_equals' && bounds.exact === undefined)
      bounds.exact = def.length as number;
    else return undefined;
  }
  return bounds;
}

/**
 * zod measures strings in code points. A code point is one or two UTF-16 units, so the units
 * decide whenever they can (at least twice the floor, at most the ceiling); only in between are
 * the code points counted.
 */
function fitsString(value: string, bounds: Bounds): boolean {
  const units = value.length;
  if (units < bounds.min) return false;
  const exact = bounds.exact;
  if (units <= bounds.max && units >= 2 * bounds.min && exact === undefined) return true;
  const length = codePoints(value);
  if (exact !== undefined && length !== exact) return false;
  return length >= bounds.min && length <= bounds.max;
}

function codePoints(value: string): number {
  const units = value.length;
  let count = units;
  for (let index = 0; index < units - 1; index += 1) {
    if (
      (value.charCodeAt(index) & 0xfc00) === 0xd800 &&
      (value.charCodeAt(index + 1) & 0xfc00) === 0xdc00
    ) {
      count -= 1;
      index += 1;
    }
  }
  return count;
}

function compileNumber(
  checks: readonly { readonly _zod: ZodNode }[],
  selfInteger: boolean,
): Check | undefined {
  let integer = selfInteger;
  let min = Number.NEGATIVE_INFINITY;
  let minInclusive = true;
  let max = Number.POSITIVE_INFINITY;
  let maxInclusive = true;
  for (const check of checks) {
    const def = check._zod.def;
    if (def.when !== undefined) return undefined;
    if (def.check === 'number_format' && def.format === 'safeint') integer = true;
    else if (def.check === 'greater_than' && typeof def.value === 'number') {
      if (def.value > min || (def.value === min && !def.inclusive)) {
        min = def.value;
        minInclusive = def.inclusive === true;
      }
    } else if (def.check === 'less_than' && typeof def.value === 'number') {
      if (def.value < max || (def.value === max && !def.inclusive)) {
        max = def.value;
        maxInclusive = def.inclusive === true;
      }
    } else return undefined;
  }
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return DECLINE;
    if (integer && !Number.isSafeInteger(value)) return DECLINE;
    if (minInclusive ? value < min : value <= min) return DECLINE;
    if (maxInclusive ? value > max : value >= max) return DECLINE;
    return value;
  };
}

function compileArray(
  element: unknown,
  checks: readonly { readonly _zod: ZodNode }[],
  depth: number,
  codegen: boolean,
): Check | undefined {
  const bounds = lengthBounds(checks);
  const check = bounds ? compileNode(element, depth + 1, codegen) : undefined;
  if (!bounds || !check) return undefined;
  return (value) => {
    if (!Array.isArray(value)) return DECLINE;
    const length = value.length;
    if (length < bounds.min || length > bounds.max) return DECLINE;
    if (bounds.exact !== undefined && length !== bounds.exact) return DECLINE;
    const out = new Array(length);
    for (let index = 0; index < length; index += 1) {
      const item = check(value[index]);
      if (item === DECLINE) return DECLINE;
      out[index] = item;
    }
    return out;
  };
}

function compileRecord(def: ZodNode['def'], depth: number, codegen: boolean): Check | undefined {
  // Any string key is valid for a plain string key schema; anything else is declined.
  const key = nodeOf(def.keyType).def;
  if (key.type !== 'string' || key.coerce || key.check !== undefined) return undefined;
  if ((key.checks ?? []).length > 0) return undefined;
  const check = compileNode(def.valueType, depth + 1, codegen);
  if (!check) return undefined;
  return (value) => {
    if (!isPlainRecord(value) || Object.getOwnPropertySymbols(value).length > 0) return DECLINE;
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      if (name === '__proto__') continue;
      const item = check(value[name]);
      if (item === DECLINE) return DECLINE;
      out[name] = item;
    }
    return out;
  };
}

interface Field {
  readonly name: string;
  readonly check: Check;
  readonly optin: ZodNode['optin'];
  readonly optionalOut: boolean;
}

function compileObject(def: ZodNode['def'], depth: number, codegen: boolean): Check | undefined {
  const shape = def.shape as Record<string, unknown>;
  if (Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const fields: Field[] = [];
  for (const name of Object.keys(shape)) {
    // zod strips a declared __proto__; not worth mirroring.
    if (name === '__proto__') return undefined;
    const check = compileNode(shape[name], depth + 1, codegen);
    if (!check) return undefined;
    const node = nodeOf(shape[name]);
    fields.push({ name, check, optin: node.optin, optionalOut: node.optout === 'optional' });
  }
  const declared = new Set(fields.map((field) => field.name));
  // Unknown keys: kept through a catchall (z.looseObject: unknown), dropped (z.object: none) or
  // refused (z.strictObject: never, declined here so zod words the error).
  let extra: Check | 'strip' | 'refuse';
  if (def.catchall === undefined) extra = 'strip';
  else if (nodeOf(def.catchall).def.type === 'never') extra = 'refuse';
  else {
    const catchall = nodeOf(def.catchall);
    const check = compileNode(def.catchall, depth + 1, codegen);
    // A catchall that may drop absent values would need zod's presence rules for each key.
    if (!check || catchall.optin !== undefined || catchall.optout !== undefined) return undefined;
    extra = check;
  }
  if (codegen) {
    const generated = generateObject(fields, extra);
    if (generated) return generated;
  }
  return (value) => {
    if (!isPlainRecord(value)) return DECLINE;
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const present = field.name in value;
      // An absent optional contributes nothing (zod ignores whatever it made of undefined).
      if (!present && field.optionalOut && field.optin === 'optional') continue;
      const item = field.check(value[field.name]);
      if (item === DECLINE) return DECLINE;
      if (!present && field.optin === undefined) return DECLINE;
      if (item !== undefined) out[field.name] = item;
      else if (present || (field.optin === 'defaulted' && !field.optionalOut))
        out[field.name] = undefined;
    }
    if (extra === 'strip') return out;
    for (const name in value) {
      if (declared.has(name)) continue;
      // A strict object refuses even a __proto__ key; the others never copy one.
      if (extra === 'refuse') return DECLINE;
      if (name === '__proto__') continue;
      const item = extra(value[name]);
      if (item === DECLINE) return DECLINE;
      out[name] = item;
    }
    return out;
  };
}

/**
 * The object check as generated code: every field is read and written under its literal name, so
 * each access site sees one key (what zod's own object parser does too). The same check run as
 * a loop over the fields reads `value[field.name]` with a different key each time, a slow generic
 * lookup at every access. Undefined where code cannot be generated (eval disallowed).
 */
function generateObject(
  fields: readonly Field[],
  extra: Check | 'strip' | 'refuse',
): Check | undefined {
  const lines = ['if (!isPlainRecord(value)) return DECLINE;', 'const out = {};'];
  fields.forEach((field, index) => {
    const key = JSON.stringify(field.name);
    // An absent optional contributes nothing (zod ignores whatever it made of undefined).
    const skipAbsent = field.optionalOut && field.optin === 'optional';
    lines.push(`{ const present = ${key} in value;`);
    if (skipAbsent) lines.push('if (present) {');
    lines.push(
      `const item = check${index}(value[${key}]);`,
      'if (item === DECLINE) return DECLINE;',
    );
    if (field.optin === undefined) lines.push('if (!present) return DECLINE;');
    const keepUndefined = field.optin === 'defaulted' && !field.optionalOut ? 'true' : 'present';
    lines.push(`if (item !== undefined) out[${key}] = item;`);
    lines.push(`else if (${keepUndefined}) out[${key}] = undefined;`);
    lines.push(skipAbsent ? '} }' : '}');
  });
  if (extra !== 'strip') {
    lines.push('for (const name in value) {');
    if (fields.length > 0) {
      lines.push('switch (name) {');
      for (const field of fields) lines.push(`case ${JSON.stringify(field.name)}:`);
      lines.push('continue;', '}');
    }
    if (extra === 'refuse') {
      // A strict object refuses even a __proto__ key.
      lines.push('return DECLINE;');
    } else {
      lines.push("if (name === '__proto__') continue;");
      lines.push(
        extra === identity
          ? 'out[name] = value[name];'
          : 'const item = extra(value[name]); if (item === DECLINE) return DECLINE; out[name] = item;',
      );
    }
    lines.push('}');
  }
  lines.push('return out;');
  const names = fields.map((_, index) => `check${index}`);
  try {
    const factory = new Function(
      'DECLINE',
      'isPlainRecord',
      'extra',
      ...names,
      `return function accept(value) {\n${lines.join('\n')}\n};`,
    );
    return factory(DECLINE, isPlainRecord, extra, ...fields.map((field) => field.check)) as Check;
  } catch {
    return undefined;
  }
}

/** An object literal (or null-prototype object): anything else is left to zod. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
