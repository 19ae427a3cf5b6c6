// One line of the audit log: what it holds, and how it is encoded so that no value from a caller
// can break it, forge another line or make it longer than a fixed size.
import type { CallDecision, GateDenial, ToolRisk } from '@toolsys/core-tool-registry';

/** Who or what refused a call: the risk gate's answer, or the HTTP layer's scope check. */
export type AuditDenial = GateDenial | 'scope';

/** Where a call came in. */
export type AuditSource = 'mcp' | 'dashboard' | 'http';

/** One call as the audit log records it. Never holds an argument value or a token. */
export interface AuditEntry {
  /** When the call ended, ISO 8601 UTC. */
  readonly time: string;
  /** Who called: a principal id and its kind (`oauth`, `token`, `local`). */
  readonly principal: { readonly id: string; readonly kind: string };
  /** The OAuth client id, and/or the name an MCP client gave in its `clientInfo`, when known. */
  readonly client?: { readonly id?: string; readonly name?: string };
  /** The tool id the caller named. */
  readonly tool: string;
  /** The call's risk; absent when no such tool exists. */
  readonly risk?: ToolRisk;
  /** What the gates decided. */
  readonly decision: CallDecision;
  /** Who or what refused, for a denied call. */
  readonly deniedBy?: AuditDenial;
  /** `ok`, or the failure code. */
  readonly outcome: string;
  /** Time from the call's start to its result, in whole ms. */
  readonly durationMs: number;
  /** The replica that served the call. */
  readonly replica?: string;
  /** Where the call came in; absent for `toolsys call` and embedding programs. */
  readonly source?: AuditSource;
  /** The executor's call id. */
  readonly callId?: string;
  /**
   * `hmac:` and 22 base64url characters of the HMAC-SHA-256 of the arguments' canonical JSON
   * under the deployment key (see {@link argumentsDigest}).
   */
  readonly args: string;
}

/** The longest audit line, in bytes (newline included): one `write` of it is one whole line. */
export const MAX_AUDIT_LINE_BYTES = 2_048;

/** The longest value kept of each free-text field, in characters; longer ones are cut. */
const FIELD_LIMITS = {
  principal: 256,
  kind: 16,
  client: 128,
  tool: 256,
  outcome: 64,
  replica: 64,
  callId: 64,
} as const;

/** Cuts a caller's string to `limit` characters, marking the cut. */
function cut(value: string, limit: number): string {
  return value.length <= limit ? value : `${value.slice(0, limit)}…`;
}

/**
 * The JSON line of an entry, newline included: every field JSON-encoded (a newline or quote in a
 * principal id or tool id stays inside its string), each free-text field cut to its limit, so
 * the line never passes {@link MAX_AUDIT_LINE_BYTES}.
 */
export function encodeAuditLine(entry: AuditEntry): string {
  const client =
    entry.client && (entry.client.id !== undefined || entry.client.name !== undefined)
      ? {
          ...(entry.client.id !== undefined
            ? { id: cut(entry.client.id, FIELD_LIMITS.client) }
            : {}),
          ...(entry.client.name !== undefined
            ? { name: cut(entry.client.name, FIELD_LIMITS.client) }
            : {}),
        }
      : undefined;
  const bounded = {
    time: entry.time,
    principal: {
      id: cut(entry.principal.id, FIELD_LIMITS.principal),
      kind: cut(entry.principal.kind, FIELD_LIMITS.kind),
    },
    ...(client ? { client } : {}),
    tool: cut(entry.tool, FIELD_LIMITS.tool),
    ...(entry.risk ? { risk: entry.risk } : {}),
    decision: entry.decision,
    ...(entry.deniedBy ? { deniedBy: entry.deniedBy } : {}),
    outcome: cut(entry.outcome, FIELD_LIMITS.outcome),
    durationMs: Math.max(0, Math.round(entry.durationMs)),
    ...(entry.replica !== undefined ? { replica: cut(entry.replica, FIELD_LIMITS.replica) } : {}),
    ...(entry.source ? { source: entry.source } : {}),
    ...(entry.callId !== undefined ? { callId: cut(entry.callId, FIELD_LIMITS.callId) } : {}),
    args: entry.args,
  };
  // With every field cut, JSON escapes (at most 6 bytes per character) keep a line of the limits
  // above far below the cap; this guard only holds if a limit is raised carelessly.
  const line = `${JSON.stringify(bounded)}\n`;
  if (Buffer.byteLength(line) <= MAX_AUDIT_LINE_BYTES) return line;
  return `${JSON.stringify({ ...bounded, principal: { id: '…', kind: bounded.principal.kind }, tool: '…', client: undefined })}\n`;
}

/** What keys argument digests: the deployment key, or anything with its `mac`. */
export interface ArgumentsKey {
  /** HMAC-SHA-256 of `data` under a key derived for `purpose`, base64url. */
  mac(purpose: string, data: string): string;
}

/** The purpose the deployment key's audit subkey is derived for. */
export const AUDIT_ARGUMENTS_PURPOSE = 'audit-arguments';

/** The digest recorded for arguments that cannot be serialized (a cycle, a BigInt). */
const UNHASHABLE = 'hmac:unhashable';

/**
 * `hmac:` and 22 base64url characters (132 bits) of the HMAC-SHA-256 of the arguments' canonical
 * JSON (object keys sorted at every depth) under the deployment key: equal arguments give equal
 * digests on every replica sharing the key, whatever their key order, and no value can be read
 * back from it. Keyed, so that a low-entropy value (a yes/no, a short path) cannot be guessed and
 * checked against the log by anyone without the key.
 */
export function argumentsDigest(value: unknown, key: ArgumentsKey): string {
  const parts: string[] = [];
  try {
    appendCanonical(parts, value, new Set());
  } catch {
    return UNHASHABLE;
  }
  return `hmac:${key.mac(AUDIT_ARGUMENTS_PURPOSE, parts.join('')).slice(0, 22)}`;
}

function appendCanonical(parts: string[], value: unknown, seen: Set<object>): void {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify of undefined (and functions) is undefined: hashed as null, as JSON would.
    parts.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (seen.has(value)) throw new TypeError('cyclic arguments');
  seen.add(value);
  if (Array.isArray(value)) {
    parts.push('[');
    value.forEach((item, index) => {
      if (index > 0) parts.push(',');
      appendCanonical(parts, item, seen);
    });
    parts.push(']');
  } else {
    parts.push('{');
    const record = value as Record<string, unknown>;
    let first = true;
    for (const key of Object.keys(record).sort()) {
      if (record[key] === undefined) continue;
      if (!first) parts.push(',');
      first = false;
      parts.push(JSON.stringify(key));
      parts.push(':');
      appendCanonical(parts, record[key], seen);
    }
    parts.push('}');
  }
  seen.delete(value);
}
