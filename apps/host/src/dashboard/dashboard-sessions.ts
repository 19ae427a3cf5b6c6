import { createHash, randomBytes } from 'node:crypto';
import type { Principal } from '../server/principal.js';

/** The cookie that holds a dashboard sign-in. */
export const SESSION_COOKIE = 'toolsys_dashboard';

/** One signed-in person on the dashboard. */
export interface DashboardSession {
  /** Who signed in: form calls run as this principal. */
  readonly principal: Principal;
  /** The value every POST of this session must carry in `x-toolsys-csrf`. */
  readonly csrf: string;
  /** When the sign-in ends (ms since the epoch). */
  readonly expiresAt: number;
}

/** Options for {@link DashboardSessions}. */
export interface DashboardSessionsOptions {
  /** How long a sign-in lasts. Default 8 hours. */
  readonly ttlMs?: number;
  /** Most sign-ins kept; the oldest is dropped first. Default 1,000. */
  readonly maxSessions?: number;
  /** Clock in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** A random value for a cookie, a state or a CSRF token: 32 bytes, base64url. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The dashboard's sign-ins, in this process, by a digest of the cookie value (so a lookup's timing
 * says nothing about a stored value). Each expires after its time to live.
 */
export class DashboardSessions {
  readonly #byDigest = new Map<string, DashboardSession>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: DashboardSessionsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 8 * 60 * 60 * 1000;
    this.#max = options.maxSessions ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  /** How long a sign-in lasts, in seconds (the cookie's Max-Age). */
  get ttlSeconds(): number {
    return Math.floor(this.#ttlMs / 1000);
  }

  /** Signs `principal` in; returns the cookie value and the session. */
  create(principal: Principal): { id: string; session: DashboardSession } {
    const id = randomSecret();
    const session = { principal, csrf: randomSecret(), expiresAt: this.#now() + this.#ttlMs };
    this.#byDigest.set(digest(id), session);
    while (this.#byDigest.size > this.#max) {
      const oldest = this.#byDigest.keys().next();
      if (oldest.done) break;
      this.#byDigest.delete(oldest.value);
    }
    return { id, session };
  }

  /** The live session of a cookie value, or undefined (unknown, or expired and forgotten now). */
  get(id: string): DashboardSession | undefined {
    const key = digest(id);
    const session = this.#byDigest.get(key);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.#byDigest.delete(key);
      return undefined;
    }
    return session;
  }

  /** Signs a cookie value out. */
  delete(id: string): void {
    this.#byDigest.delete(digest(id));
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** The cookies of a request by name (the first of a name wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const equals = part.indexOf('=');
    if (equals <= 0) continue;
    const name = part.slice(0, equals).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(equals + 1).trim());
  }
  return cookies;
}

/** Options for {@link cookieHeader}. */
export interface CookieOptions {
  /** Seconds until it expires; 0 removes it. */
  readonly maxAge: number;
  /** `Strict` for the sign-in, `Lax` for what must come back from the identity provider. */
  readonly sameSite: 'Strict' | 'Lax';
  /** Path it is sent for. Default `/`. */
  readonly path?: string;
  /** Sent only over https (when the public URL is https:). */
  readonly secure: boolean;
}

/** A `Set-Cookie` value: always HttpOnly. */
export function cookieHeader(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${options.path ?? '/'}`,
    `Max-Age=${options.maxAge}`,
    'HttpOnly',
    `SameSite=${options.sameSite}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
