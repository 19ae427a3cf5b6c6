// Who defined a run-time tool (a shortcut, a skill), as the registry and the files on disk name it.
import { createHash } from 'node:crypto';
import { type CallPrincipal, principalKey } from '@toolsys/core-tool-registry';

/** The principal key of the `local` principal: the definer of files written before owners were recorded. */
export const LOCAL_DEFINER = principalKey(undefined);

/**
 * The principal a {@link principalKey} names, to look tools up as that principal sees them
 * (its scopes are not part of the key and stay empty).
 */
export function principalOfKey(key: string): CallPrincipal {
  const colon = key.indexOf(':');
  const kind = key.slice(0, colon);
  return {
    kind: kind === 'oauth' || kind === 'token' ? kind : 'local',
    id: key.slice(colon + 1),
    scopes: [],
  };
}

/**
 * A file-name-safe name for a principal's own folder or file suffix: a digest of its key, so a
 * hostile subject (`../x`, a very long one) never shapes a path.
 */
export function definerDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 24);
}
