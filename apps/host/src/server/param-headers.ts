// SEP-2243 `Mcp-Param-*` headers of a 2026-07-28 `tools/call`, checked against its arguments.
//
// A tool argument annotated `"x-mcp-header": "<Name>"` is sent again by 2026-07-28 clients in an
// `Mcp-Param-<Name>` header, so intermediaries (the load balancer routing by handle) can act on it
// without reading the body. The server must refuse a call whose header and argument disagree:
// otherwise a request could be routed by one value and run with another.

import type { IncomingHttpHeaders } from 'node:http';

/** JSON-RPC `HeaderMismatch`: the request's headers and body disagree (SEP-2243). */
export const HEADER_MISMATCH_CODE = -32020;

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

/** One argument a client mirrors into a header: where it is and under which header name. */
interface HeaderDeclaration {
  readonly header: string;
  readonly path: readonly string[];
  readonly type: unknown;
}

/** The refusal of a call whose `Mcp-Param-*` header disagrees with its argument. */
export interface ParamHeaderMismatch {
  /** The header at fault, as the spec names it (`Mcp-Param-Handle`). */
  readonly header: string;
  /** What disagrees, for the error message. */
  readonly detail: string;
}

/**
 * The `x-mcp-header` declarations of an input schema: properties reached from the root through
 * `properties` only (where the spec allows them).
 */
export function headerDeclarations(
  schema: unknown,
  path: readonly string[] = [],
): HeaderDeclaration[] {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const found: HeaderDeclaration[] = [];
  for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof property !== 'object' || property === null) continue;
    const header = (property as Record<string, unknown>)['x-mcp-header'];
    if (typeof header === 'string' && header !== '') {
      found.push({ header, path: [...path, name], type: (property as { type?: unknown }).type });
    }
    found.push(...headerDeclarations(property, [...path, name]));
  }
  return found;
}

/**
 * Checks each declared argument of a call against its header: an argument with a value needs its
 * `Mcp-Param-<Name>` header, equal once decoded (a `=?base64?…?=` value is Base64 of UTF-8); an
 * absent or null argument needs none. Undefined when every one agrees.
 */
export function paramHeaderMismatch(
  schema: unknown,
  args: unknown,
  headers: IncomingHttpHeaders,
): ParamHeaderMismatch | undefined {
  for (const declaration of headerDeclarations(schema)) {
    const header = `Mcp-Param-${declaration.header}`;
    const value = valueAt(args, declaration.path);
    const expected = primitiveText(value);
    if (expected === undefined) continue;
    const raw = headers[header.toLowerCase()];
    if (raw === undefined) {
      return {
        header,
        detail: `the argument ${declaration.path.join('.')} is set but the ${header} header is absent`,
      };
    }
    const decoded = typeof raw === 'string' ? decodeParamValue(raw) : undefined;
    if (decoded === undefined) {
      return {
        header,
        detail: `the ${header} header is sent twice or carries an invalid Base64 value`,
      };
    }
    const numeric =
      (declaration.type === 'integer' || declaration.type === 'number') &&
      typeof value === 'number' &&
      CANONICAL_DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== expected) {
      return {
        header,
        detail: `the ${header} header does not carry the value of the argument ${declaration.path.join('.')}`,
      };
    }
  }
  return undefined;
}

/** The JSON-RPC error body for a {@link ParamHeaderMismatch} (sent with HTTP 400). */
export function paramHeaderMismatchError(
  mismatch: ParamHeaderMismatch,
  id: string | number | null,
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: HEADER_MISMATCH_CODE,
      message: `Bad Request: the request headers and body disagree: ${mismatch.detail}. Send the argument's exact value in the ${mismatch.header} header (list the tools again if its schema changed).`,
      data: { mismatch: { header: mismatch.header, body: mismatch.detail } },
    },
  };
}

/** A header value as text: Base64 of UTF-8 inside the sentinel, else as is; undefined when invalid. */
export function decodeParamValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const base64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A primitive argument as its header text; undefined when there is nothing to mirror. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
