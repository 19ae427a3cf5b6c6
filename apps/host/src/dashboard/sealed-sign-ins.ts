// Dashboard sign-ins as sealed cookies: any replica holding the deployment key opens them, a
// restart keeps them, and a sign-out revokes one in the deployment's state store.
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '@toolsys/state-redis';
import type { DeploymentKey } from '../deployment-key.js';
import type { Principal } from '../server/principal.js';
import type { DashboardSession } from './dashboard-sessions.js';

/** What seals a sign-in: the deployment key, whose purposes keep cookies apart from other seals. */
const SIGN_IN_PURPOSE = 'dashboard-sign-in';
/** The purpose a sign-in's CSRF value is derived for. */
const CSRF_PURPOSE = 'dashboard-csrf';
/** Default time a sign-in lasts: 8 hours. */
const DEFAULT_TTL_MS = 8 * 60 * 60 * 1000;
/** Most scopes a sealed sign-in carries (a cookie must stay under 4 KiB). */
const MAX_SEALED_SCOPES = 64;

/**
 * The store of dashboard sign-ins `createDashboardAccess` uses: a cookie value for a principal,
 * the session a cookie value stands for, and sign-out. Sync or async.
 */
export interface DashboardSignIns {
  /** How long a sign-in lasts, in seconds (the cookie's Max-Age). */
  readonly ttlSeconds: number;
  /** Signs `principal` in; returns the cookie value and the session. */
  create(
    principal: Principal,
  ): { id: string; session: DashboardSession } | Promise<{ id: string; session: DashboardSession }>;
  /** The live session of a cookie value, or undefined (unknown, altered, expired, signed out). */
  get(id: string): DashboardSession | undefined | Promise<DashboardSession | undefined>;
  /** Signs a cookie value out. */
  delete(id: string): void | Promise<void>;
}

/** Where signed-out sign-ins are remembered until they would have expired. */
export interface SignInRevocations {
  /** Remembers that sign-in `id` ended, until `untilMs` (ms since the epoch). */
  revoke(id: string, untilMs: number): Promise<void>;
  /** Whether sign-in `id` was signed out. */
  isRevoked(id: string): Promise<boolean>;
}

/** Revocations in this process only: enough for one replica. */
export class LocalRevocations implements SignInRevocations {
  readonly #until = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async revoke(id: string, untilMs: number): Promise<void> {
    const now = this.#now();
    for (const [known, until] of this.#until) if (until <= now) this.#until.delete(known);
    this.#until.set(id, untilMs);
  }

  async isRevoked(id: string): Promise<boolean> {
    const until = this.#until.get(id);
    return until !== undefined && until > this.#now();
  }
}

/**
 * Revocations shared by every replica through Redis (`state.redis`), kept in this process too.
 * While Redis is away a sign-out made on another replica is not seen here until it returns; one
 * made here always is.
 */
export class RedisRevocations implements SignInRevocations {
  readonly #connection: RedisConnection;
  readonly #local: LocalRevocations;
  readonly #now: () => number;

  constructor(connection: RedisConnection, now: () => number = Date.now) {
    this.#connection = connection;
    this.#now = now;
    this.#local = new LocalRevocations(now);
  }

  async revoke(id: string, untilMs: number): Promise<void> {
    await this.#local.revoke(id, untilMs);
    const ttl = Math.max(1, Math.ceil(untilMs - this.#now()));
    await this.#connection.run((redis) => redis.set(this.#key(id), '1', 'PX', ttl));
  }

  async isRevoked(id: string): Promise<boolean> {
    if (await this.#local.isRevoked(id)) return true;
    return (await this.#connection.run((redis) => redis.exists(this.#key(id)))) === 1;
  }

  #key(id: string): string {
    return this.#connection.key('dashboard', 'signed-out', id);
  }
}

/** Options for {@link SealedDashboardSignIns}. */
export interface SealedDashboardSignInsOptions {
  /** The deployment key (shared by every replica), or how to load it. */
  readonly key: DeploymentKey | (() => Promise<DeploymentKey>);
  /** Where sign-outs are kept: Redis when the deployment has `state.redis`, else this process. */
  readonly revocations: SignInRevocations;
  /** How long a sign-in lasts. Default 8 hours. */
  readonly ttlMs?: number;
  /** Clock in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** What a sealed sign-in cookie holds. */
interface SealedSignIn {
  /** A random id: what a sign-out revokes, and what the CSRF value is derived from. */
  readonly sid: string;
  readonly principal: {
    readonly id: string;
    readonly kind: Principal['kind'];
    readonly clientId?: string;
    readonly scopes: readonly string[];
  };
}

/**
 * Dashboard sign-ins kept in nothing but their cookie: the principal, its kind, client and scopes,
 * the expiry and a random id, sealed (encrypted and authenticated) with the deployment key, so
 * any replica opens them and a restart keeps them. The CSRF value is an HMAC of the random id. A
 * sign-out revokes the id until the cookie would have expired.
 */
export class SealedDashboardSignIns implements DashboardSignIns {
  readonly #key: () => Promise<DeploymentKey>;
  readonly #revocations: SignInRevocations;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: SealedDashboardSignInsOptions) {
    const { key } = options;
    this.#key = typeof key === 'function' ? key : async () => key;
    this.#revocations = options.revocations;
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  get ttlSeconds(): number {
    return Math.floor(this.#ttlMs / 1000);
  }

  async create(principal: Principal): Promise<{ id: string; session: DashboardSession }> {
    const key = await this.#key();
    const now = this.#now();
    const sealed: SealedSignIn = {
      sid: randomBytes(16).toString('base64url'),
      principal: {
        id: principal.id,
        kind: principal.kind,
        ...(principal.clientId !== undefined ? { clientId: principal.clientId } : {}),
        scopes: principal.scopes.slice(0, MAX_SEALED_SCOPES),
      },
    };
    const id = key.seal(SIGN_IN_PURPOSE, sealed, this.#ttlMs, now);
    return { id, session: sessionOf(sealed, key, now + this.#ttlMs) };
  }

  async get(id: string): Promise<DashboardSession | undefined> {
    const opened = await this.#open(id);
    if (opened === undefined || (await this.#revocations.isRevoked(opened.sealed.sid))) {
      return undefined;
    }
    return sessionOf(opened.sealed, opened.key, opened.expiresAt);
  }

  async delete(id: string): Promise<void> {
    const opened = await this.#open(id);
    if (opened) await this.#revocations.revoke(opened.sealed.sid, opened.expiresAt);
  }

  async #open(
    id: string,
  ): Promise<{ sealed: SealedSignIn; key: DeploymentKey; expiresAt: number } | undefined> {
    const key = await this.#key();
    const opened = key.open<SealedSignIn>(SIGN_IN_PURPOSE, id, this.#now());
    if (!opened.ok || !isSealedSignIn(opened.payload)) return undefined;
    return { sealed: opened.payload, key, expiresAt: opened.expiresAt };
  }
}

function sessionOf(sealed: SealedSignIn, key: DeploymentKey, expiresAt: number): DashboardSession {
  const { id, kind, clientId, scopes } = sealed.principal;
  return {
    principal: { id, kind, ...(clientId !== undefined ? { clientId } : {}), scopes: [...scopes] },
    csrf: key.mac(CSRF_PURPOSE, sealed.sid),
    expiresAt,
  };
}

/** Whether an opened payload has the shape this class seals (only a key holder could make it). */
function isSealedSignIn(value: unknown): value is SealedSignIn {
  const candidate = value as Partial<SealedSignIn> | null;
  const principal = candidate?.principal;
  return (
    typeof candidate?.sid === 'string' &&
    typeof principal?.id === 'string' &&
    (principal.kind === 'oauth' || principal.kind === 'token' || principal.kind === 'local') &&
    Array.isArray(principal.scopes) &&
    principal.scopes.every((scope) => typeof scope === 'string')
  );
}

/**
 * The dashboard sign-ins of a deployment: sealed with its key, sign-outs kept in Redis when
 * `state.redis` is configured (else in this process). The HTTP server passes it to
 * `dashboardAccessFor` as `sessions`.
 */
export function dashboardSignInsFor(deployment: {
  deploymentKey(): Promise<DeploymentKey>;
  readonly stack: { readonly scaleOut: { readonly sharedState?: { connection: RedisConnection } } };
}): SealedDashboardSignIns {
  const connection = deployment.stack.scaleOut.sharedState?.connection;
  return new SealedDashboardSignIns({
    key: () => deployment.deploymentKey(),
    revocations: connection ? new RedisRevocations(connection) : new LocalRevocations(),
  });
}
