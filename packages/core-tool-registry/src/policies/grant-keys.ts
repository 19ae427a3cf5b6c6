// The keys permission grants are remembered under: one principal's grant never matches another's.
import { createHash } from 'node:crypto';
import { principalKey } from '../contract/handle-owner.js';
import type { CallPrincipal } from '../contract/tool.js';

/**
 * A digest of a principal's key (32 hex digits), for names that others may read: a Redis key, a
 * folder. Never the raw id, which may be an e-mail address or hold `/` and `..`.
 */
export function principalDigest(principal: CallPrincipal | undefined): string {
  const key = principalKey(principal);
  let digest = DIGESTS.get(key);
  if (digest === undefined) {
    digest = createHash('sha256').update(`toolsys-principal:${key}`).digest('hex').slice(0, 32);
    // Bounded: a deployment serves a few principals; a flood of them only costs re-hashing.
    if (DIGESTS.size >= MAX_CACHED_DIGESTS) DIGESTS.clear();
    DIGESTS.set(key, digest);
  }
  return digest;
}

/**
 * The key a grant on `subject` (a tool id, or a grant group's key) is remembered under for
 * `principal`. The local principal's grants keep the bare subject, as before principals existed
 * (so grants persisted then stay the local user's); every other principal's start with the
 * digest of its key and a `:`, which no tool id has, so no two principals' keys ever meet.
 */
export function grantKey(principal: CallPrincipal | undefined, subject: string): string {
  if (principal === undefined || principal.kind === 'local') return subject;
  return `${principalDigest(principal)}:${subject}`;
}

/** The subject of a session grant covering every tool of a grant group. */
export function groupGrantSubject(groupId: string): string {
  return `group:${groupId}`;
}

const MAX_CACHED_DIGESTS = 1024;
const DIGESTS = new Map<string, string>();
