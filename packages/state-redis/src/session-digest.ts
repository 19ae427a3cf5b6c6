import { createHash } from 'node:crypto';

/**
 * The part of a Redis key or message that stands for a session: a SHA-256 digest of the session
 * id (32 hex digits), never the id itself. Anyone who can list keys (`KEYS`, `SCAN`, a monitoring
 * tool) or read the revocation log learns no live session id, yet every replica derives the same
 * digest from the same id. Session ids are random (122 bits or more), so the digest cannot be
 * reversed by guessing.
 */
export function sessionDigest(sessionId: string): string {
  return createHash('sha256').update(`toolsys-session:${sessionId}`).digest('hex').slice(0, 32);
}
