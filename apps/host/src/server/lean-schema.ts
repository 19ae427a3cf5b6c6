/**
 * The array cap from which a `maxItems` is a guard rail against hostile input rather than
 * something a model plans a call around (200 columns of a CSV query, 10 000 choices).
 */
export const GUARD_RAIL_ITEMS = 100;

/** Keywords whose value is a map from names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'patternProperties']);

/**
 * An input schema as listed to a model: the same schema without its guard rails against hostile
 * input: string length caps (`maxLength`: 40 characters of a ref, 5 MB of a CSV text), `minLength:
 * 1` (non-empty) and array caps from {@link GUARD_RAIL_ITEMS}. The executor still enforces every
 * one, and a call that breaks one fails naming the field and the limit. Every field, type, enum,
 * pattern, format, required list and numeric bound stays as declared. Two things that say nothing
 * go too: a default that is the zero value of its type (`false`, `""`, `[]`, `{}`: what an absent
 * optional field means anyway) and a description that only repeats the argument's name
 * (`operation`: "Operation."). The declared schema is listed to a client that asks for the full
 * catalog, and `tool_describe` shows it.
 */
export function leanInputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return leanNode(schema) as Record<string, unknown>;
}

function leanNode(node: unknown, name?: string): unknown {
  if (Array.isArray(node)) return node.map((item) => leanNode(item));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'maxLength' && typeof value === 'number') continue;
    if (key === 'minLength' && value === 1) continue;
    if (key === 'maxItems' && typeof value === 'number' && value >= GUARD_RAIL_ITEMS) continue;
    if (key === 'default' && isZeroValue(value)) continue;
    if (key === 'description' && name !== undefined && repeatsName(value, name)) continue;
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') {
      out[key] = value;
    } else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([field, schema]) => [field, leanNode(schema, field)]),
      );
    } else {
      out[key] = leanNode(value);
    }
  }
  return out;
}

function isZeroValue(value: unknown): boolean {
  if (value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/** Letters only, lower case: `maxTokens`, "Max tokens." and `max_tokens` all read `maxtokens`. */
function letters(text: string): string {
  return text.toLowerCase().replace(/[^a-z]/g, '');
}

/** Whether a description says no more than its argument's name (`operation`: "Operation."). */
function repeatsName(description: unknown, name: string): boolean {
  return typeof description === 'string' && letters(description) === letters(name);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
