// RFC 7662 token introspection: how a protected resource checks an opaque access token.
import { createHash } from 'node:crypto';
import type { OAuthIdentity, TokenCheck } from './oauth-resource.js';

/** Longest wait for the introspection endpoint, in ms. */
export const INTROSPECTION_TIMEOUT_MS = 5_000;

/** How long an introspection answer is reused, in ms (never past the token's `exp`). */
export const INTROSPECTION_CACHE_MS = 30_000;

/** Answers kept in the cache; the oldest go first. */
const CACHE_ENTRIES = 1_000;

/** Clock skew tolerated on `exp`, in seconds (as for JWT access tokens). */
const SKEW_SECONDS = 60;

/** Options of {@link createIntrospector}. */
export interface IntrospectorOptions {
  /** The introspection endpoint, or where to find it (the issuer metadata's `introspection_endpoint`). */
  endpoint: () => Promise<URL>;
  /** This resource server's client id at the authorization server. */
  clientId: string;
  /** Its client secret (sent with `client_secret_basic`). */
  clientSecret: string;
  /** The issuer an answer's `iss`, when present, must name. */
  issuer: string;
  /** The resource an answer's `aud` must name. */
  audience: string;
  /** Fetch used for the requests. Default the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Checks an opaque access token by introspection; never throws, never waits past its timeout. */
export type Introspector = (token: string) => Promise<TokenCheck>;

/** What the authorization server said of one token, kept under the token's digest. */
interface CachedAnswer {
  readonly check: TokenCheck;
  readonly until: number;
}

const UNREACHABLE: TokenCheck = {
  ok: false,
  description:
    'The authorization server could not check the access token (introspection failed or timed out); try again shortly.',
};
const INACTIVE: TokenCheck = {
  ok: false,
  description: 'The access token is not active (expired, revoked or unknown).',
};

/**
 * An RFC 7662 introspector: POSTs the token with `client_secret_basic`, accepts it only when the
 * answer says `active: true`, names a `sub`, an unexpired `exp`, this resource in `aud` and (when
 * present) this issuer in `iss`. Answers are cached for a short time under a SHA-256 digest of
 * the token, never the token itself; a failed request is not cached.
 */
export function createIntrospector(options: IntrospectorOptions): Introspector {
  const fetcher = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const cache = new Map<string, CachedAnswer>();
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before the Basic encoding.
  const credentials = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64');
  const remember = (key: string, check: TokenCheck, until: number) => {
    cache.delete(key);
    cache.set(key, { check, until });
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  };
  return async (token) => {
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = cache.get(key);
    if (cached && cached.until > now()) return cached.check;
    let answer: Record<string, unknown>;
    try {
      const endpoint = await options.endpoint();
      const response = await fetcher(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${credentials}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS),
      });
      if (!response.ok) return UNREACHABLE;
      answer = (await response.json()) as Record<string, unknown>;
      if (typeof answer !== 'object' || answer === null) return UNREACHABLE;
    } catch {
      return UNREACHABLE;
    }
    const check = judge(answer, options, now());
    const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : Number.POSITIVE_INFINITY;
    remember(key, check, Math.min(now() + INTROSPECTION_CACHE_MS, check.ok ? exp : Infinity));
    return check;
  };
}

/** The check an introspection answer gives. */
function judge(answer: Record<string, unknown>, options: IntrospectorOptions, now: number) {
  if (answer.active !== true) return INACTIVE;
  const refuse = (claim: string): TokenCheck => ({
    ok: false,
    description: `The access token's "${claim}" claim is not accepted here.`,
  });
  if (typeof answer.exp !== 'number' || answer.exp + SKEW_SECONDS <= now / 1000) {
    return typeof answer.exp === 'number' ? INACTIVE : refuse('exp');
  }
  const audiences = Array.isArray(answer.aud) ? answer.aud : [answer.aud];
  if (!audiences.includes(options.audience)) return refuse('aud');
  if (answer.iss !== undefined && answer.iss !== options.issuer) return refuse('iss');
  if (typeof answer.sub !== 'string' || answer.sub === '') return refuse('sub');
  const clientId = typeof answer.client_id === 'string' ? answer.client_id : undefined;
  const scope = typeof answer.scope === 'string' ? answer.scope : '';
  const identity: OAuthIdentity = {
    subject: answer.sub,
    ...(clientId !== undefined ? { clientId } : {}),
    scopes: scope.split(' ').filter((entry) => entry !== ''),
  };
  return { ok: true, identity } satisfies TokenCheck;
}

/** Whether a bearer token has the shape of a JWS compact serialization (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
