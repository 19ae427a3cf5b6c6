import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from './principal.js';

/** A bearer token the server accepts, and whom it names. */
export interface NamedToken {
  /** The principal the token names: letters, digits, `.`, `_`, `-`, `@`; at most 64 characters. */
  readonly name: string;
  /** The secret itself. */
  readonly token: string;
  /**
   * Scopes the token grants (the names of `server.auth.scopes`, by default `tools:read`,
   * `tools:write`, `tools:admin`). Absent: every scope, as with one shared token.
   */
  readonly scopes?: readonly string[];
}

/** A list of named tokens that cannot be used (a start-up mistake); the message names the token. */
export class TokenConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenConfigError';
  }
}

/** The name the single `tokenEnv` token gets as a principal. */
export const DEFAULT_TOKEN_NAME = 'default';

/** Names a principal may have. */
export const TOKEN_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** What a token with no `scopes` holds: the marker {@link hasEveryScope} recognises. */
const EVERY_SCOPE = '*';

/** Whether a principal's scopes are unrestricted (a named token configured without scopes). */
export function hasEveryScope(principal: Principal): boolean {
  return principal.kind === 'token' && principal.scopes.includes(EVERY_SCOPE);
}

/**
 * Finds the named token a request carries, in constant time with respect to every configured
 * secret: each is compared by its SHA-256 digest, all of them every time, so neither the match
 * nor its position shows in the timing. Throws on a duplicate name or secret, an empty secret or
 * a bad name (a start-up mistake).
 */
export function createStaticTokens(
  tokens: readonly NamedToken[],
): (request: IncomingMessage, url: URL) => Principal | undefined {
  const names = new Set<string>();
  const digests = new Set<string>();
  const entries = tokens.map((entry) => {
    if (!TOKEN_NAME.test(entry.name)) {
      throw new TokenConfigError(`Token name "${entry.name}" must match ${TOKEN_NAME.source}.`);
    }
    if (entry.token === '') throw new TokenConfigError(`Token "${entry.name}" is empty.`);
    const digest = sha256(`Bearer ${entry.token}`);
    if (names.has(entry.name))
      throw new TokenConfigError(`Token name "${entry.name}" is used twice.`);
    if (digests.has(digest.toString('hex'))) {
      throw new TokenConfigError(`Token "${entry.name}" has the same secret as another token.`);
    }
    names.add(entry.name);
    digests.add(digest.toString('hex'));
    const principal: Principal = Object.freeze({
      id: entry.name,
      kind: 'token',
      scopes: Object.freeze([...(entry.scopes ?? [EVERY_SCOPE])]),
    });
    return { digest, principal };
  });
  return (request, url) => {
    const given = sha256(request.headers.authorization ?? pageToken(request, url) ?? '');
    let found: Principal | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(given, entry.digest) && found === undefined) found = entry.principal;
    }
    return found;
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The dashboard page itself may carry the token in `?token=` (a browser cannot set headers). */
function pageToken(request: IncomingMessage, url: URL): string | undefined {
  if (request.method !== 'GET' || url.pathname !== '/') return undefined;
  const token = url.searchParams.get('token');
  return token === null ? undefined : `Bearer ${token}`;
}
