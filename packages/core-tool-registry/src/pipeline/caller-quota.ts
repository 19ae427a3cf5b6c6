/**
 * The keys of rate-limit quotas: each caller's own quota of a tool, and how many callers' worth
 * the quota all callers share holds.
 */

/**
 * How many callers' quotas the quota shared by all callers of a tool holds: one session alone
 * meets its own quota first (as with a single quota), and several sessions together meet the
 * shared one.
 */
export const SHARED_QUOTA_CALLERS = 4;

/**
 * The rate limiter's key of one caller's quota for a tool: the tool id and a digest of the
 * session id (so that a shared store's key names do not list session ids).
 */
export function callerQuotaKey(toolId: string, sessionId: string): string {
  return `${toolId}#caller:${digestId(sessionId)}`;
}

/**
 * The rate limiter's key of a principal's own quota (every tool together): a digest of its kind
 * and id, so that key names in a shared store do not list principals.
 */
export function principalQuotaKey(principal: {
  readonly kind: string;
  readonly id: string;
}): string {
  return `principal#${digestId(`${principal.kind}:${principal.id}`)}`;
}

/**
 * The key a tool's shared counters (its shared rate quota, its circuit breaker) are kept under:
 * its id, and for a tool only its definer sees (`definedBy`) a digest of that principal too, so
 * that two principals' tools of one id never share a quota or trip each other's breaker.
 */
export function toolCounterKey(tool: { readonly id: string; readonly definedBy?: string }): string {
  return tool.definedBy === undefined ? tool.id : `${tool.id}#by:${digestId(tool.definedBy)}`;
}

/** A short non-reversible digest of an id (two 32-bit FNV-1a hashes), for key names. */
function digestId(id: string): string {
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ id.length;
  for (let index = 0; index < id.length; index++) {
    const code = id.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193) >>> 0;
    second = Math.imul(second ^ code, 0x5bd1e995) >>> 0;
  }
  return first.toString(16).padStart(8, '0') + second.toString(16).padStart(8, '0');
}
