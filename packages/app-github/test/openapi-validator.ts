/**
 * Checks requests and responses of the fake server against GitHub's published OpenAPI description
 * (the subset in fixtures/github-openapi-subset.json, extracted from `@octokit/openapi` by
 * fixtures/extract-openapi-subset.mjs). Requests are checked in full: path and query parameters
 * (names, types, enums, bounds) and JSON bodies with their required fields. Responses are checked
 * field by field: every field sent must have the documented type, but fields may be missing,
 * because the fixtures are trimmed.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema?: Record<string, unknown>;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
}

interface Subset {
  source: string;
  operations: Record<string, Operation>;
  schemas: Record<string, unknown>;
}

const subset = JSON.parse(
  readFileSync(new URL('./fixtures/github-openapi-subset.json', import.meta.url), 'utf8'),
) as Subset;

/**
 * OpenAPI 3.0 `nullable: true` as JSON Schema: `null` joins the type (and the enum), or, without a
 * type, the schema becomes "this or null".
 */
function normalise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalise);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = normalise(value);
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

/** Drops `required` and turns `oneOf` into `anyOf`: trimmed bodies match several variants. */
function relax(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relax);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'required' && Array.isArray(value)) continue;
    out[key === 'oneOf' ? 'anyOf' : key] = relax(value);
  }
  return out;
}

const strictAjv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const relaxedAjv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const strictSchemas = normalise(subset.schemas);
const relaxedSchemas = relax(strictSchemas);

function compile(ajv: Ajv, schemas: unknown, schema: unknown): ValidateFunction {
  return ajv.compile({ components: { schemas }, allOf: [normalise(schema)] });
}

interface CompiledOperation {
  id: string;
  operation: Operation;
  pattern: RegExp;
  names: string[];
  parameters: Map<string, ValidateFunction>;
  body?: ValidateFunction;
  responses: Map<string, ValidateFunction>;
}

const compiled: CompiledOperation[] = Object.entries(subset.operations).map(([id, operation]) => {
  const names: string[] = [];
  const pattern = new RegExp(
    `^${operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      names.push(name);
      // A file path spans segments; every other parameter is one segment.
      return name === 'path' ? '(.*)' : '([^/]+)';
    })}$`,
  );
  const parameters = new Map<string, ValidateFunction>();
  for (const parameter of operation.parameters) {
    if (parameter.schema) {
      parameters.set(
        `${parameter.in}:${parameter.name}`,
        compile(strictAjv, strictSchemas, parameter.schema),
      );
    }
  }
  const responses = new Map<string, ValidateFunction>();
  for (const [status, schema] of Object.entries(operation.responses)) {
    responses.set(status, compile(relaxedAjv, relaxedSchemas, relax(normalise(schema))));
  }
  return {
    id,
    operation,
    pattern,
    names,
    parameters,
    ...(operation.requestBody
      ? { body: compile(strictAjv, strictSchemas, operation.requestBody) }
      : {}),
    responses,
  };
});

/** Where the subset came from. */
export const OPENAPI_SOURCE = subset.source;

/** Finds the documented operation for a request, or undefined. */
export function findOperation(method: string, path: string): CompiledOperation | undefined {
  return compiled.find((entry) => entry.operation.method === method && entry.pattern.test(path));
}

function coerce(value: string, schema: Record<string, unknown> | undefined): unknown {
  const type = schema?.type;
  if (type === 'integer' || type === 'number') return value === '' ? value : Number(value);
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

function describe(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? 'invalid'}`)
    .join('; ');
}

/** Problems with a request, each a sentence; empty when it follows the description. */
export function checkRequest(
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
): string[] {
  const entry = findOperation(method, path);
  if (!entry) return [`${method} ${path} is not an operation the tools are known to use`];
  const problems: string[] = [];
  const match = entry.pattern.exec(path);
  entry.names.forEach((name, index) => {
    const validate = entry.parameters.get(`path:${name}`);
    const value = decodeURIComponent(match?.[index + 1] ?? '');
    if (validate && !validate(value))
      problems.push(`${entry.id}: path parameter ${name} ${describe(validate)}`);
  });
  const declared = new Map(
    entry.operation.parameters.filter((p) => p.in === 'query').map((p) => [p.name, p]),
  );
  for (const [name, value] of query) {
    const parameter = declared.get(name);
    if (!parameter) {
      problems.push(`${entry.id}: unknown query parameter ${name}`);
      continue;
    }
    const validate = entry.parameters.get(`query:${name}`);
    if (validate && !validate(coerce(value, parameter.schema))) {
      problems.push(`${entry.id}: query parameter ${name}=${value} ${describe(validate)}`);
    }
  }
  for (const parameter of declared.values()) {
    if (parameter.required && !query.has(parameter.name)) {
      problems.push(`${entry.id}: missing query parameter ${parameter.name}`);
    }
  }
  if (entry.body) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [...problems, `${entry.id}: body is not JSON`];
    }
    if (!entry.body(parsed)) problems.push(`${entry.id}: body ${describe(entry.body)}`);
  }
  return problems;
}

/** Problems with a response body the fake produced; empty when every field sent is documented so. */
export function checkResponse(
  method: string,
  path: string,
  status: number,
  body: unknown,
): string[] {
  const entry = findOperation(method, path);
  const validate = entry?.responses.get(String(status));
  if (!entry || !validate) return [];
  return validate(body) ? [] : [`${entry.id} ${status} response: ${describe(validate)}`];
}
