import {
  type PermissionDecisionStore,
  type RememberedGrant,
  SYSTEM_CLOCK,
  type ToolClock,
} from '@toolsys/core-tool-registry';
import type { Redis } from 'ioredis';
import type { RedisConnection } from './redis-connection.js';
import {
  parseRevocation,
  REVOKE_SCRIPT,
  type Revocation,
  type RevokeCommands,
} from './revoke-script.js';
import { sessionDigest } from './session-digest.js';

/** Options for {@link RedisPermissionStore}. */
export interface RedisPermissionStoreOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /**
   * How long a session's grants stay in Redis without use, in ms: set it to the session's idle
   * limit (the host's `server.sessionIdleSeconds`), so that a grant never outlives its session even
   * when nobody ends it (a replica killed). Each use of a grant past half of it extends it. The
   * host also deletes them when the session ends. Default 30 minutes, at least 1 s.
   */
  sessionTtlMs?: number;
  /**
   * The policy "always" answers belong to: "always" grants are kept under
   * `<prefix>perm:always:<scope>`, so that only replicas with the same scope (the host passes a
   * digest of its permission policy) honour them. Default: none (`<prefix>perm:always`).
   */
  scope?: string;
  /**
   * Tools this replica's own configuration allows always (the host's `permissions.alwaysAllow`):
   * honoured whatever Redis says and whether or not it answers, ended only by `revokeAlways` on
   * this replica.
   */
  alwaysAllowed?: Iterable<string>;
  /**
   * Longest time this replica honours a grant from its own copy without Redis confirming it, in
   * ms: the worst-case delay before a revocation on another replica takes effect here when the
   * invalidation message is lost or Redis is down. Default 5000, at least 100.
   */
  maxStalenessMs?: number;
  /**
   * Revocations kept in the shared log `<prefix>perm:revocations`, newest first: a replica cut off
   * from Redis while more revocations than this were made drops its whole copy on reconnect, the
   * grants it gave meanwhile included, instead of pushing them. Default 1000, at least 1. The log
   * expires `sessionTtlMs` after the last revocation.
   */
  revocationLogLength?: number;
  /**
   * Clock of the staleness window. Default: the system clock. The background confirmation runs on
   * a real interval whatever the clock.
   */
  clock?: ToolClock;
}

/** One grant in this replica's copy. */
interface CachedGrant {
  /** When Redis last confirmed it (the time the confirming request was sent). */
  verifiedAt: number;
  /** Given on this replica and not yet in Redis: honoured until pushed, however old. */
  pending: boolean;
  /** When its session key expires in Redis, on this replica's clock (session grants only). */
  expiresAt?: number;
}

const DEFAULT_SESSION_TTL_MS = 30 * 60_000;
const DEFAULT_STALENESS_MS = 5000;
const DEFAULT_LOG_LENGTH = 1000;
const CHANNEL = 'perm:invalidate';
/** Resync attempts when revocations keep landing between reading the log and pushing. */
const RESYNC_ATTEMPTS = 3;

/**
 * Remembers "allow for the session" and "always" grants in Redis so that a reconnect landing on
 * another replica is not asked again. Each grant is the answering principal's own: the manager
 * names it with `grantKey` (a digest of the principal, never its id, and the tool), so a grant
 * shared through Redis never holds for another principal on any replica. Reads are answered from this replica's copy (no wait); a
 * grant this replica does not know is fetched from Redis (bounded) before the user is asked.
 *
 * Revocations reach the other replicas at once over pub/sub; a copy Redis has not confirmed for
 * `maxStalenessMs` (a lost message, Redis down) is no longer honoured, so the caller asks Redis
 * again, and the user when Redis cannot answer: a revoked grant outlives its revocation by at most
 * `maxStalenessMs`.
 *
 * Grants given here while Redis cannot take them are honoured here and pushed when it returns;
 * revocations made here meanwhile are pushed too. A revocation made anywhere while this replica
 * was cut off wins over its grants: every revocation is also kept in a capped log, and before
 * pushing, this replica reads the ones newer than the last version it saw and drops the grants
 * they cover instead of pushing them. When the log no longer reaches back that far (trimmed,
 * expired, Redis lost its data), or this replica never reached Redis and Redis counts revocations,
 * it drops its whole copy, the grants it gave meanwhile included: the user is asked again.
 */
export class RedisPermissionStore implements PermissionDecisionStore {
  /** Longest time a grant is honoured without Redis confirming it, in ms. */
  readonly maxStalenessMs: number;
  readonly #connection: RedisConnection;
  readonly #sessionTtlMs: number;
  readonly #logLength: number;
  readonly #clock: Pick<ToolClock, 'now'>;
  readonly #configured: Set<string>;
  readonly #scope: string | undefined;
  readonly #always = new Map<string, CachedGrant>();
  readonly #sessions = new Map<string, Map<string, CachedGrant>>();
  /** Revocations made while Redis could not take them, pushed on resync. */
  readonly #revokedAlways = new Set<string>();
  readonly #forgottenSessions = new Set<string>();
  readonly #detach: (() => void)[] = [];
  /** The revocation count this copy is consistent with; undefined: unknown. */
  #version: number | undefined;
  /**
   * The revocation count up to which every revocation has reached this whole copy, the grants
   * given here and not yet pushed included; undefined until the first resync.
   */
  #revocationsSeen: number | undefined;
  /** Bumped by every invalidation message, so a fetch answered before it is not cached. */
  #epoch = 0;
  #revalidation: ReturnType<typeof setInterval> | undefined;

  constructor(options: RedisPermissionStoreOptions) {
    this.#connection = options.connection;
    this.#sessionTtlMs = Math.max(1000, options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS);
    this.#logLength = Math.max(1, Math.floor(options.revocationLogLength ?? DEFAULT_LOG_LENGTH));
    this.maxStalenessMs = Math.max(100, options.maxStalenessMs ?? DEFAULT_STALENESS_MS);
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#configured = new Set(options.alwaysAllowed);
    this.#scope = options.scope === '' ? undefined : options.scope;
    this.#connection.defineScript('toolsysRevokeGrant', 3, REVOKE_SCRIPT);
    this.#detach.push(
      this.#connection.onResync((client) => this.#resync(client)),
      this.#connection.subscribe(CHANNEL, (message) => this.#invalidate(message)),
    );
    // Confirms the copy in one GET per interval, so grants in use cost no round trip on the
    // call path; several confirmations fit in one staleness window.
    this.#revalidation = setInterval(() => void this.#revalidate(), this.maxStalenessMs / 4);
    this.#revalidation.unref?.();
  }

  isAllowedAlways(toolId: string): boolean {
    return this.#configured.has(toolId) || this.#isValid(this.#always, toolId);
  }

  isAllowedForSession(session: string, toolId: string): boolean {
    // Everything below, in memory and in Redis, knows the session by its digest only.
    const sessionId = sessionDigest(session);
    const grants = this.#sessions.get(sessionId);
    if (grants === undefined || !this.#isValid(grants, toolId)) return false;
    this.#extend(sessionId, grants.get(toolId));
    return true;
  }

  allowAlways(toolId: string): void {
    const grant: CachedGrant = { verifiedAt: this.#clock.now(), pending: true };
    this.#always.set(toolId, grant);
    this.#revokedAlways.delete(toolId);
    const epoch = this.#epoch;
    void this.#connection
      .run((redis) => redis.multi().sadd(this.#alwaysKey(), toolId).get(this.#versionKey()).exec())
      .then((reply) => {
        if (!reply) return;
        grant.pending = false;
        this.#observeVersion(reply[1]?.[1], grant.verifiedAt, epoch);
      });
  }

  allowForSession(session: string, toolId: string): void {
    // Everything below, in memory and in Redis, knows the session by its digest only.
    const sessionId = sessionDigest(session);
    const now = this.#clock.now();
    const grant: CachedGrant = {
      verifiedAt: now,
      pending: true,
      expiresAt: now + this.#sessionTtlMs,
    };
    this.#sessionGrants(sessionId).set(toolId, grant);
    const key = this.#sessionKey(sessionId);
    const epoch = this.#epoch;
    void this.#connection
      .run((redis) =>
        redis
          .multi()
          .sadd(key, toolId)
          .pexpire(key, this.#sessionTtlMs)
          .get(this.#versionKey())
          .exec(),
      )
      .then((reply) => {
        if (!reply) return;
        grant.pending = false;
        this.#observeVersion(reply[2]?.[1], now, epoch);
      });
  }

  revokeAlways(toolId: string): void {
    this.#configured.delete(toolId);
    this.#always.delete(toolId);
    this.#revokedAlways.add(toolId);
    void this.#revoke(this.#alwaysKey(), 'always', toolId, '').then((version) => {
      if (version !== undefined) this.#revokedAlways.delete(toolId);
    });
  }

  forgetSession(session: string): void {
    // Everything below, in memory and in Redis, knows the session by its digest only.
    const sessionId = sessionDigest(session);
    this.#sessions.delete(sessionId);
    this.#forgottenSessions.add(sessionId);
    void this.#revoke(this.#sessionKey(sessionId), 'session', '', sessionId).then((version) => {
      if (version !== undefined) this.#forgottenSessions.delete(sessionId);
    });
  }

  /**
   * Looks the grant up in Redis (one bounded round trip): "always" under `toolId`, "for the
   * session" under `sessionKey` (default `toolId`); a hit is copied locally.
   */
  async fetch(
    session: string,
    toolId: string,
    sessionKey: string = toolId,
  ): Promise<RememberedGrant | undefined> {
    // Everything below, in memory and in Redis, knows the session by its digest only.
    const sessionId = sessionDigest(session);
    const epoch = this.#epoch;
    const sentAt = this.#clock.now();
    const sessionSet = this.#sessionKey(sessionId);
    const reply = await this.#connection.run((redis) =>
      redis
        .multi()
        .sismember(this.#alwaysKey(), toolId)
        .sismember(sessionSet, sessionKey)
        .pttl(sessionSet)
        .get(this.#versionKey())
        .exec(),
    );
    // A revocation announced while the answer travelled may postdate it: ask the user instead.
    if (!reply || epoch !== this.#epoch) return undefined;
    this.#observeVersion(reply[3]?.[1], sentAt, epoch);
    if (reply[0]?.[1] === 1 && !this.#revokedAlways.has(toolId)) {
      this.#always.set(toolId, { verifiedAt: sentAt, pending: false });
      return 'allowed_always';
    }
    if (reply[1]?.[1] === 1 && !this.#forgottenSessions.has(sessionId)) {
      const ttl = Number(reply[2]?.[1]);
      this.#sessionGrants(sessionId).set(sessionKey, {
        verifiedAt: sentAt,
        pending: false,
        expiresAt: sentAt + (ttl > 0 ? ttl : this.#sessionTtlMs),
      });
      return 'allowed_session';
    }
    return undefined;
  }

  /** Stops pushing grants on resync, listening to invalidations and confirming the copy. */
  close(): void {
    for (const detach of this.#detach.splice(0)) detach();
    if (this.#revalidation) clearInterval(this.#revalidation);
    this.#revalidation = undefined;
  }

  /** A session grant in use past half its time to live: extended here and in Redis. */
  #extend(sessionId: string, grant: CachedGrant | undefined): void {
    if (!grant || grant.pending || grant.expiresAt === undefined) return;
    const now = this.#clock.now();
    if (grant.expiresAt - now > this.#sessionTtlMs / 2) return;
    grant.expiresAt = now + this.#sessionTtlMs;
    const key = this.#sessionKey(sessionId);
    // PEXPIRE does nothing to a key that is gone (the session ended, a revocation): no revival.
    void this.#connection.run((redis) => redis.pexpire(key, this.#sessionTtlMs));
  }

  #isValid(grants: Map<string, CachedGrant>, toolId: string): boolean {
    const grant = grants.get(toolId);
    if (!grant) return false;
    const now = this.#clock.now();
    if (grant.expiresAt !== undefined && now >= grant.expiresAt) {
      grants.delete(toolId);
      return false;
    }
    if (grant.pending || now - grant.verifiedAt <= this.maxStalenessMs) return true;
    // Fail closed: the caller fetches (Redis confirms or not), and asks the user when it cannot.
    grants.delete(toolId);
    return false;
  }

  #revoke(
    key: string,
    kind: 'always' | 'session',
    toolId: string,
    sessionId: string,
  ): Promise<number | undefined> {
    return this.#connection
      .run((redis) =>
        this.#sendRevocation(redis as unknown as RevokeCommands, key, kind, toolId, sessionId),
      )
      .then((reply) => {
        if (reply === undefined) return undefined;
        if (reply[1] === 1) this.#reportVersion();
        return reply[0];
      });
  }

  #reportVersion(): void {
    this.#connection.reportInvalid(this.#versionKey(), 'a grant revocation count');
  }

  #sendRevocation(
    commands: RevokeCommands,
    key: string,
    kind: 'always' | 'session',
    toolId: string,
    sessionId: string,
  ): Promise<[number, number]> {
    return commands.toolsysRevokeGrant(
      key,
      this.#versionKey(),
      this.#logKey(),
      this.#connection.key(CHANNEL),
      kind,
      toolId,
      sessionId,
      this.#logLength,
      this.#sessionTtlMs,
    );
  }

  #invalidate(message: string): void {
    const invalidation = parseRevocation(message);
    if (!invalidation) return;
    this.#epoch += 1;
    this.#forgetRevoked(invalidation);
    // A message that does not follow the count (messages missed, or one from an older writer)
    // leaves it: the next resync reads the missed ones from the log.
    const follows = (count: number | undefined) =>
      count !== undefined && invalidation.after === count;
    if (follows(this.#revocationsSeen)) this.#revocationsSeen = invalidation.version;
    if (follows(this.#version)) {
      this.#version = invalidation.version;
    } else if (this.#version === undefined || invalidation.version > this.#version) {
      // Messages were missed (or the count is unknown): drop every confirmed grant.
      this.#dropConfirmed(Number.POSITIVE_INFINITY);
      this.#version = invalidation.version;
    }
  }

  /** One GET of the revocation count: unchanged confirms the whole copy, changed drops it. */
  async #revalidate(): Promise<void> {
    if (this.#connection.mode !== 'shared' || !this.#hasConfirmed()) return;
    const epoch = this.#epoch;
    const sentAt = this.#clock.now();
    const key = this.#versionKey();
    const reply = await this.#connection.run((redis) => redis.get(key));
    if (reply === undefined) return;
    if (this.#observeVersion(reply, sentAt, epoch)) {
      for (const grant of this.#confirmed()) grant.verifiedAt = Math.max(grant.verifiedAt, sentAt);
    }
  }

  /**
   * Compares the revocation count Redis gave for a request sent at `sentAt` with the one this copy
   * is consistent with. Equal (and no message meanwhile): true, the copy holds. Otherwise the
   * grants confirmed before `sentAt` are dropped and the count adopted; false.
   */
  #observeVersion(reply: unknown, sentAt: number, epoch: number): boolean {
    const version = this.#parseVersion(reply);
    if (version !== undefined && epoch === this.#epoch && version === this.#version) return true;
    this.#dropConfirmed(sentAt);
    if (epoch === this.#epoch) this.#version = version;
    return false;
  }

  async #resync(redis: Redis): Promise<void> {
    // Redis may have restarted empty: the count starts again, so the old one proves nothing.
    this.#version = undefined;
    for (let attempt = 0; attempt < RESYNC_ATTEMPTS; attempt += 1) {
      if (await this.#tryResync(redis)) return;
    }
    throw new Error('grant resync kept racing revocations');
  }

  /**
   * Reads the revocations this replica missed and drops the grants they cover, then pushes its
   * own revocations and its remaining grants. WATCH on the count makes the push fail (false) when
   * another revocation landed after the read.
   */
  async #tryResync(redis: Redis): Promise<boolean> {
    const sentAt = this.#clock.now();
    const read = await redis
      .pipeline()
      .watch(this.#versionKey())
      .get(this.#versionKey())
      .lrange(this.#logKey(), 0, -1)
      .exec();
    if (!read || read.some(([error]) => error)) throw new Error('grant resync failed');
    const parsed = this.#parseVersion(read[1]?.[1]);
    const version = parsed ?? 0;
    // An invalid count says nothing about what was revoked: drop the copy (below), as when the
    // log does not reach back; the next revocation replaces the count.
    const missed =
      parsed === undefined ? undefined : this.#missedRevocations(version, read[2]?.[1] as string[]);
    if (missed === undefined) {
      // The log does not say what was revoked meanwhile: drop the whole copy rather than guess.
      this.#always.clear();
      this.#sessions.clear();
    }
    for (const revocation of missed ?? []) this.#forgetRevoked(revocation);

    const transaction = redis.multi();
    const commands = transaction as unknown as RevokeCommands;
    const revoked = [...this.#revokedAlways];
    const forgotten = [...this.#forgottenSessions];
    for (const toolId of revoked) {
      this.#sendRevocation(commands, this.#alwaysKey(), 'always', toolId, '');
    }
    for (const sessionId of forgotten) {
      this.#sendRevocation(commands, this.#sessionKey(sessionId), 'session', '', sessionId);
    }
    const pushed: CachedGrant[] = [];
    const always = [...this.#always].filter(([, grant]) => grant.pending);
    if (always.length > 0) {
      transaction.sadd(this.#alwaysKey(), ...always.map(([toolId]) => toolId));
    }
    for (const [, grant] of always) pushed.push(grant);
    for (const [sessionId, grants] of this.#sessions) {
      const pending = [...grants].filter(([, grant]) => grant.pending);
      if (pending.length === 0) continue;
      transaction.sadd(this.#sessionKey(sessionId), ...pending.map(([toolId]) => toolId));
      transaction.pexpire(this.#sessionKey(sessionId), this.#sessionTtlMs);
      for (const [, grant] of pending) pushed.push(grant);
    }
    const results = await transaction.exec();
    if (results === null) return false;
    if (results.some(([error]) => error)) throw new Error('grant resync failed');
    for (const toolId of revoked) this.#revokedAlways.delete(toolId);
    for (const sessionId of forgotten) this.#forgottenSessions.delete(sessionId);
    for (const grant of pushed) {
      grant.pending = false;
      grant.verifiedAt = sentAt;
    }
    // The transaction's own revocations took the versions right after the one read.
    const own = results
      .slice(0, revoked.length + forgotten.length)
      .map(([, value]) => Number((value as [number, number])[0]));
    this.#revocationsSeen = Math.max(version, ...own);
    return true;
  }

  /**
   * The revocations after the last version this replica saw, up to `version` (Redis's count), from
   * the log; undefined when they cannot all be known: this replica never saw a version, Redis
   * lost its data, or the log lacks some of them (trimmed, expired).
   */
  #missedRevocations(version: number, log: string[]): Revocation[] | undefined {
    // A replica that never reached Redis has seen nothing: enough only when nothing was revoked.
    const seen = this.#revocationsSeen ?? (version === 0 ? 0 : undefined);
    if (seen === undefined) return undefined;
    if (version === seen) return [];
    const missed: Revocation[] = [];
    for (const entry of log) {
      const revocation = parseRevocation(entry);
      if (!revocation || revocation.version <= seen) break;
      if (revocation.version <= version) missed.push(revocation);
    }
    // Newest first, each following the next: complete when the chain runs from `version` back to
    // the one that follows `seen` (a counter Redis created anew after losing its data never does).
    const isChain = missed.every(
      (revocation, index) => index === 0 || missed[index - 1]?.after === revocation.version,
    );
    return isChain && missed[0]?.version === version && missed.at(-1)?.after === seen
      ? missed
      : undefined;
  }

  /**
   * The revocation count Redis gave: absent is 0; a value that is not a plain count (not written
   * by {@link REVOKE_SCRIPT}) is reported and undefined (unknown: confirmed grants are dropped).
   */
  #parseVersion(reply: unknown): number | undefined {
    if (reply === null || reply === undefined) return 0;
    if (typeof reply === 'string' && /^\d{1,15}$/.test(reply)) return Number(reply);
    if (typeof reply === 'number' && Number.isSafeInteger(reply) && reply >= 0) return reply;
    this.#reportVersion();
    return undefined;
  }

  /** Drops from this copy what a revocation removed in Redis, grants not yet pushed included. */
  #forgetRevoked({ kind, tool, session }: Revocation): void {
    if (kind === 'always') {
      if (tool === '') this.#always.clear();
      else this.#always.delete(tool);
    } else if (tool === '') this.#sessions.delete(session);
    else this.#sessions.get(session)?.delete(tool);
  }

  #hasConfirmed(): boolean {
    return !this.#confirmed().next().done;
  }

  *#confirmed(): Generator<CachedGrant> {
    for (const grant of this.#always.values()) if (!grant.pending) yield grant;
    for (const grants of this.#sessions.values())
      for (const grant of grants.values()) if (!grant.pending) yield grant;
  }

  /** Drops the grants Redis confirmed before `before` (grants given here and not pushed stay). */
  #dropConfirmed(before: number): void {
    const drop = (grants: Map<string, CachedGrant>) => {
      for (const [toolId, grant] of grants)
        if (!grant.pending && grant.verifiedAt < before) grants.delete(toolId);
    };
    drop(this.#always);
    for (const [sessionId, grants] of this.#sessions) {
      drop(grants);
      if (grants.size === 0) this.#sessions.delete(sessionId);
    }
  }

  #sessionGrants(sessionId: string): Map<string, CachedGrant> {
    let grants = this.#sessions.get(sessionId);
    if (!grants) {
      grants = new Map();
      this.#sessions.set(sessionId, grants);
    }
    this.#forgottenSessions.delete(sessionId);
    return grants;
  }

  #alwaysKey(): string {
    return this.#scope === undefined
      ? this.#connection.key('perm', 'always')
      : this.#connection.key('perm', 'always', this.#scope);
  }

  /** The key of a session's grants, named by the session's digest (see {@link sessionDigest}). */
  #sessionKey(sessionId: string): string {
    return this.#connection.key('perm', 'session', sessionId);
  }

  #versionKey(): string {
    return this.#connection.key('perm', 'version');
  }

  #logKey(): string {
    return this.#connection.key('perm', 'revocations');
  }
}
