/** Bounds of {@link describeArguments}. */
export interface ArgumentDescriptionLimits {
  /** Most fields (leaf values) shown; a call with more is not described. Default 256. */
  readonly maxFields: number;
  /**
   * Longest value of a field that decides what runs (a path, URL, command, environment, header,
   * risk) shown whole; longer ones are shortened to head…tail with their length. Default 2000.
   */
  readonly maxDecisiveLength: number;
  /** Longest value of any other field shown whole (e.g. file content). Default 200. */
  readonly maxValueLength: number;
  /** Deepest nesting described; a deeper call is not described. Default 16. */
  readonly maxDepth: number;
  /**
   * Longest description, in characters, once long values are shortened; a call whose description
   * would be longer is not described (no one reads a prompt that long). Default 20 000.
   */
  readonly maxLength: number;
}

/** The defaults of {@link ArgumentDescriptionLimits}. */
export const DEFAULT_ARGUMENT_DESCRIPTION_LIMITS: ArgumentDescriptionLimits = Object.freeze({
  maxFields: 256,
  maxDecisiveLength: 2000,
  maxValueLength: 200,
  maxDepth: 16,
  maxLength: 20_000,
});

/** Every field of a call, one line each, or why they cannot all be shown. */
export type ArgumentDescription =
  | { readonly ok: true; readonly text: string; readonly fields: number }
  | { readonly ok: false; readonly reason: string };

/** Argument keys whose values never appear in a prompt: credentials and session material. */
const SECRET_KEY = /authorization|cookie|token|password|passwd|secret|api[-_]?key|credential/i;

/**
 * Keys whose values decide what runs or where it goes: shown first and shortened last. Matched
 * against every key on a field's path, so `env.PATH` and `tools.0.command` count.
 */
const DECISIVE_KEY =
  /^(path|paths|file|files|filename|source|destination|dest|target|to|from|dir|directory|cwd|root|url|urls|uri|endpoint|href|host|method|command|commands|cmd|args|argv|arguments|script|program|executable|shell|env|environment|headers?|risk|transport|server)$/i;

/** A value that names a place or a program, whatever its key: a URL or an absolute path. */
const DECISIVE_VALUE = /^(?:[a-z][a-z0-9+.-]*:\/\/|\/|~\/|\.{1,2}\/)/i;

const EMPTY_ARRAY = Symbol('[]');
const EMPTY_OBJECT = Symbol('{}');

interface Field {
  readonly path: string;
  readonly decisive: boolean;
  readonly value: unknown;
  readonly secret: boolean;
}

/**
 * Every argument of a call as a person must see it before allowing it: one line per field
 * (`path: ".githooks/pre-commit"`, `tools.0.command: "sh -c {{script}}"`), the fields that decide
 * what runs (paths, URLs, commands, environment, headers, risk) first, long values shortened to
 * head…tail with their length, credential values as `[redacted]`. No field is ever left out: a call
 * with more fields or deeper nesting than the limits is not described (`ok: false`), and whoever
 * asked must refuse rather than show part of it.
 */
export function describeArguments(
  rawArgs: unknown,
  limits: Partial<ArgumentDescriptionLimits> = {},
): ArgumentDescription {
  const bounds = { ...DEFAULT_ARGUMENT_DESCRIPTION_LIMITS, ...limits };
  const fields: Field[] = [];
  const failure = collect(rawArgs, [], false, false, bounds, fields, new Set());
  if (failure !== undefined) return { ok: false, reason: failure };
  if (fields.length === 0) return { ok: true, text: '(no arguments)', fields: 0 };
  const ordered = [
    ...fields.filter((field) => field.decisive),
    ...fields.filter((field) => !field.decisive),
  ];
  const lines = ordered.map((field) => {
    const shown = field.secret ? '[redacted]' : showValue(field.value, field.decisive, bounds);
    return `${field.path}: ${shown}`;
  });
  const text = lines.join('\n');
  if (text.length > bounds.maxLength) {
    return {
      ok: false,
      reason: `the arguments take ${text.length} characters to show, more than ${bounds.maxLength}`,
    };
  }
  return { ok: true, text, fields: fields.length };
}

function collect(
  value: unknown,
  path: readonly string[],
  decisive: boolean,
  secret: boolean,
  bounds: ArgumentDescriptionLimits,
  fields: Field[],
  seen: Set<object>,
): string | undefined {
  if (value !== null && typeof value === 'object') {
    if (seen.has(value)) return 'the arguments refer to themselves';
    if (path.length >= bounds.maxDepth) {
      return `the arguments nest deeper than ${bounds.maxDepth} levels`;
    }
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    if (entries.length === 0) {
      if (path.length === 0) return undefined;
      const empty = Array.isArray(value) ? EMPTY_ARRAY : EMPTY_OBJECT;
      return pushField(fields, path, empty, decisive, false, bounds);
    }
    seen.add(value);
    for (const [key, item] of entries) {
      const isDecisive = decisive || DECISIVE_KEY.test(key);
      const isSecret =
        secret || (SECRET_KEY.test(key) && (typeof item === 'string' || typeof item === 'number'));
      const failure = collect(item, [...path, key], isDecisive, isSecret, bounds, fields, seen);
      if (failure !== undefined) return failure;
    }
    seen.delete(value);
    return undefined;
  }
  const isDecisive = decisive || (typeof value === 'string' && DECISIVE_VALUE.test(value));
  return pushField(fields, path, value, isDecisive, secret, bounds);
}

function pushField(
  fields: Field[],
  path: readonly string[],
  value: unknown,
  decisive: boolean,
  secret: boolean,
  bounds: ArgumentDescriptionLimits,
): string | undefined {
  if (fields.length >= bounds.maxFields) {
    return `the call has more than ${bounds.maxFields} argument fields`;
  }
  fields.push({ path: showPath(path), decisive, value, secret });
  return undefined;
}

/** `tools.0.command`; a key that is not a plain name is shown as a JSON string. */
function showPath(path: readonly string[]): string {
  if (path.length === 0) return '(arguments)';
  return path.map((key) => (/^[A-Za-z0-9_$-]+$/.test(key) ? key : JSON.stringify(key))).join('.');
}

function showValue(value: unknown, decisive: boolean, bounds: ArgumentDescriptionLimits): string {
  if (value === EMPTY_ARRAY) return '[]';
  if (value === EMPTY_OBJECT) return '{}';
  if (typeof value !== 'string') {
    // Numbers, booleans, null; anything else (undefined, a bigint) by its type.
    return typeof value === 'number' || typeof value === 'boolean' || value === null
      ? String(value)
      : `(${typeof value})`;
  }
  const max = decisive ? bounds.maxDecisiveLength : bounds.maxValueLength;
  const characters = [...value];
  if (characters.length <= max) return JSON.stringify(value);
  const head = characters.slice(0, Math.ceil(max * 0.6)).join('');
  const tail = characters.slice(characters.length - Math.floor(max * 0.3)).join('');
  return `${JSON.stringify(head)}…${JSON.stringify(tail)} (${characters.length} characters)`;
}
