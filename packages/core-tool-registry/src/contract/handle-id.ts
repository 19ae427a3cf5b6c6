import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ToolError, ToolErrorCode } from './tool-error.js';
import { failureResult, type ToolFailure } from './tool-result.js';

/**
 * The SEP-2243 header name every handle argument is annotated with (`x-mcp-header`): a
 * 2026-07-28 client sends the argument's value again in an `Mcp-Param-Handle` HTTP header, so a
 * load balancer can route the call to the replica the handle names without reading the body.
 */
export const HANDLE_HEADER = 'Handle';

/** The HTTP header a 2026-07-28 client mirrors a handle argument into. */
export const HANDLE_HTTP_HEADER = `Mcp-Param-${HANDLE_HEADER}`;

/**
 * What a replica name may be: letters, digits, `_` and `-`, at most 32 (no dot: the dot ends the
 * name in a handle, and a load balancer matches the name followed by it).
 */
export const REPLICA_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** Longest handle accepted as an argument (a replica name, a kind and 128 random bits fit). */
export const HANDLE_MAX_LENGTH = 80;

/** Random bytes in a handle: 128 bits, so a handle cannot be guessed. */
const HANDLE_RANDOM_BYTES = 16;

const KIND_PATTERN = /^[a-z]{1,8}$/;
const HANDLE_PATTERN = /^(?:([A-Za-z0-9_-]{1,32})\.)?([a-z]{1,8})-([0-9a-f]{32})$/;

/** Whether `name` can name a replica in handles and headers ({@link REPLICA_NAME_PATTERN}). */
export function isReplicaName(name: string): boolean {
  return REPLICA_NAME_PATTERN.test(name);
}

/**
 * Mints a handle a tool returns and later takes back as an argument (a terminal session, a browser
 * tab …): `<replica>.<kind>-<32 hex>` on a named replica, `<kind>-<32 hex>` otherwise. The random
 * part has 128 bits; ownership is checked separately (a handle is a name, not a capability).
 */
export function mintHandle(kind: string, replicaName?: string): string {
  if (!KIND_PATTERN.test(kind)) throw new Error(`handle kind "${kind}" must be 1 to 8 a-z letters`);
  if (replicaName !== undefined && !isReplicaName(replicaName)) {
    throw new Error(`replica name "${replicaName}" must match ${REPLICA_NAME_PATTERN.source}`);
  }
  const id = `${kind}-${randomBytes(HANDLE_RANDOM_BYTES).toString('hex')}`;
  return replicaName === undefined ? id : `${replicaName}.${id}`;
}

/** A handle taken apart: the replica it names (none when minted unnamed) and its kind. */
export interface ParsedHandle {
  readonly replica: string | undefined;
  readonly kind: string;
}

/** Takes a handle of {@link mintHandle}'s form apart; undefined for anything else. */
export function parseHandle(handle: string): ParsedHandle | undefined {
  const match = HANDLE_PATTERN.exec(handle);
  if (match === null) return undefined;
  return { replica: match[1], kind: match[2] as string };
}

/**
 * The schema of a handle argument: a bounded string annotated with `x-mcp-header: Handle`, so
 * 2026-07-28 clients mirror it into the `Mcp-Param-Handle` header (one per tool).
 */
export function handleArgument(description: string) {
  return z
    .string()
    .min(1)
    .max(HANDLE_MAX_LENGTH)
    .describe(description)
    .meta({ 'x-mcp-header': HANDLE_HEADER });
}

/** What {@link foreignReplicaFailure} says about a handle this replica does not hold. */
export interface ForeignHandle {
  /** The handle as the caller gave it. */
  readonly handle: string;
  /** The argument that carried it. */
  readonly field: string;
  /** What it names, for people: `terminal session`, `browser tab`. */
  readonly what: string;
  /** This replica's name; undefined when unnamed. */
  readonly replicaName: string | undefined;
  /** The next step once the handle is lost: `Start a new one with terminal.create.` */
  readonly next: string;
}

/**
 * The error for a handle that names another replica than this one, or undefined when it names
 * this one (or none): then the caller's own not-found answer applies. It says only what the
 * handle's text says (which replica minted it), the same to every caller, so it tells nothing of
 * who owns it. The request reached this replica instead of the named one: behind a load balancer
 * that routes by handle, that replica is down, restarting or removed, and what it held is gone.
 */
export function foreignReplicaError(foreign: ForeignHandle): ToolError | undefined {
  const replica = parseHandle(foreign.handle)?.replica;
  if (replica === undefined || replica === foreign.replicaName) return undefined;
  const here = foreign.replicaName ?? 'unnamed';
  return new ToolError(
    ToolErrorCode.NOT_FOUND,
    `${foreign.field}: ${foreign.what} "${foreign.handle}" belongs to replica "${replica}", but this request reached replica "${here}", which cannot reach it. Replica "${replica}" is down, restarting or removed (or the request bypassed the load balancer); if it is gone, the ${foreign.what} ended with it.`,
    {
      field: foreign.field,
      hint: `Do not retry with this handle. ${foreign.next}`,
      details: { reason: 'replica-gone', openedOn: replica, servedBy: here },
    },
  );
}

/** {@link foreignReplicaError} as a failure result, for tools that return failures. */
export function foreignReplicaFailure(foreign: ForeignHandle): ToolFailure | undefined {
  const error = foreignReplicaError(foreign);
  return error === undefined ? undefined : failureResult(error.code, error.message, error.options);
}
