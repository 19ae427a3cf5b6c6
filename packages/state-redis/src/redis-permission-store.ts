import {
  InMemoryPermissionStore,
  type PermissionDecisionStore,
  type RememberedGrant,
} from '@toolsys/core-tool-registry';
import type { RedisConnection } from './redis-connection.js';

/** Options for {@link RedisPermissionStore}. */
export interface RedisPermissionStoreOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** How long a session's grants are kept in Redis after its last grant, in ms. Default 24 h. */
  sessionTtlMs?: number;
}

const DAY_MS = 86_400_000;

/**
 * Remembers "allow for the session" and "always" grants in Redis so that a reconnect landing on
 * another replica is not asked again. Reads are answered from this replica's copy (no wait); a
 * grant this replica does not know is fetched from Redis (bounded) before the user is asked.
 * Grants made while Redis is down stay local and are pushed when it returns.
 */
export class RedisPermissionStore implements PermissionDecisionStore {
  /** This replica's copy of the grants. */
  readonly local = new InMemoryPermissionStore();
  readonly #connection: RedisConnection;
  readonly #sessionTtlMs: number;
  readonly #always = new Set<string>();
  readonly #sessions = new Map<string, Set<string>>();
  readonly #unsubscribe: () => void;

  constructor(options: RedisPermissionStoreOptions) {
    this.#connection = options.connection;
    this.#sessionTtlMs = Math.max(1000, options.sessionTtlMs ?? DAY_MS);
    this.#unsubscribe = this.#connection.onResync(async (redis) => {
      const pipeline = redis.pipeline();
      if (this.#always.size > 0) pipeline.sadd(this.#alwaysKey(), ...this.#always);
      for (const [sessionId, tools] of this.#sessions) {
        if (tools.size === 0) continue;
        pipeline.sadd(this.#sessionKey(sessionId), ...tools);
        pipeline.pexpire(this.#sessionKey(sessionId), this.#sessionTtlMs);
      }
      await pipeline.exec();
    });
  }

  isAllowedAlways(toolId: string): boolean {
    return this.local.isAllowedAlways(toolId);
  }

  isAllowedForSession(sessionId: string, toolId: string): boolean {
    return this.local.isAllowedForSession(sessionId, toolId);
  }

  allowAlways(toolId: string): void {
    this.local.allowAlways(toolId);
    this.#always.add(toolId);
    void this.#connection.run((redis) => redis.sadd(this.#alwaysKey(), toolId));
  }

  allowForSession(sessionId: string, toolId: string): void {
    this.local.allowForSession(sessionId, toolId);
    let tools = this.#sessions.get(sessionId);
    if (!tools) {
      tools = new Set();
      this.#sessions.set(sessionId, tools);
    }
    tools.add(toolId);
    const key = this.#sessionKey(sessionId);
    void this.#connection.run((redis) =>
      redis.multi().sadd(key, toolId).pexpire(key, this.#sessionTtlMs).exec(),
    );
  }

  revokeAlways(toolId: string): void {
    this.local.revokeAlways(toolId);
    this.#always.delete(toolId);
    void this.#connection.run((redis) => redis.srem(this.#alwaysKey(), toolId));
  }

  forgetSession(sessionId: string): void {
    this.local.forgetSession(sessionId);
    this.#sessions.delete(sessionId);
    void this.#connection.run((redis) => redis.del(this.#sessionKey(sessionId)));
  }

  /** Looks the grant up in Redis (one bounded round trip); a hit is copied locally. */
  async fetch(sessionId: string, toolId: string): Promise<RememberedGrant | undefined> {
    const reply = await this.#connection.run((redis) =>
      redis
        .multi()
        .sismember(this.#alwaysKey(), toolId)
        .sismember(this.#sessionKey(sessionId), toolId)
        .exec(),
    );
    if (!reply) return undefined;
    if (reply[0]?.[1] === 1) {
      this.local.allowAlways(toolId);
      return 'allowed_always';
    }
    if (reply[1]?.[1] === 1) {
      this.local.allowForSession(sessionId, toolId);
      return 'allowed_session';
    }
    return undefined;
  }

  /** Stops pushing grants on resync. */
  close(): void {
    this.#unsubscribe();
  }

  #alwaysKey(): string {
    return this.#connection.key('perm', 'always');
  }

  #sessionKey(sessionId: string): string {
    return this.#connection.key('perm', 'session', sessionId);
  }
}
