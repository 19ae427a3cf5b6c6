import { createHash } from 'node:crypto';

/**
 * A short digest of a session id or handle (12 hex digits of its SHA-256), for pages and logs that
 * must tell handles apart without showing them: a handle shown is a handle anyone reading can use.
 */
export function handleDigest(handle: string): string {
  return createHash('sha256').update(handle).digest('hex').slice(0, 12);
}
