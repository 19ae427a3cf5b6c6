/**
 * The largest JSON-RPC message the servers read, over stdio (one line) and over HTTP (one body):
 * 64 MiB. It is set so that every request the tools accept fits: the largest content argument
 * (`write_file`'s 10,485,760 characters) takes at most 6 bytes a character once JSON-escaped
 * (`\u0001`), 60 MiB, and the rest of the request fits in what is left. A per-call argument
 * limit must stay below this size so that a valid request always reaches the tool.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The JSON-RPC error code of a message over {@link MAX_MESSAGE_BYTES} (Invalid Request). */
export const MESSAGE_TOO_LARGE_CODE = -32600;

/** The message of the JSON-RPC error answering a message over the limit. */
export function messageTooLargeText(size: number | undefined, limit: number): string {
  const seen = size === undefined ? 'more than' : `${size} bytes, over`;
  return `Message too large: ${seen} the limit of ${limit} bytes${formatMiB(limit)} for one message. It was not read; the server keeps serving. Send smaller arguments (e.g. split a large write into several files or calls).`;
}

/** ` (64 MiB)` for sizes of a mebibyte or more, nothing below. */
function formatMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib < 1) return '';
  return ` (${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB)`;
}

/** How many bytes of each end of an oversized message are kept to find its request id. */
export const ID_PROBE_BYTES = 256;

const LEADING_ID =
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")\s*[,}]/;
const TRAILING_ID = /[{,]\s*"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/;

/**
 * The request id of a message that is too large to parse, recovered cheaply from its first and
 * last bytes: a top-level `"id"` that opens the object (after `"jsonrpc"`) or closes it (the SDK
 * puts it last). Undefined when neither end shows one, and the error then carries a null id.
 */
export function recoverRequestId(head: string, tail: string): string | number | undefined {
  const match = LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail);
  if (!match?.[1]) return undefined;
  try {
    const id: unknown = JSON.parse(match[1]);
    if (typeof id === 'string') return id;
    if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  } catch {
    // A malformed escape: no id to give.
  }
  return undefined;
}
