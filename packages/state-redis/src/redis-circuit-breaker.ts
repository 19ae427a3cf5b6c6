import {
  type CircuitBreakerLike,
  type CircuitBreakerState,
  type CircuitDecision,
  type CircuitState,
  circuitOpenFailure,
  isInfrastructureFailure,
  ToolCircuitBreaker,
  type ToolCircuitBreakerOptions,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import type { RedisConnection } from './redis-connection.js';

// The state machine of core's ToolCircuitBreaker, in Redis hashes (state, failures, cooldown,
// openedAt, lastCode, lastMessage) with the time of Redis `TIME`. The single HALF_OPEN probe across
// all replicas is a key taken with SET NX PX (expiring after a cooldown, as the local breaker
// replaces a probe that never reported).
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * KEYS: circuit, probe. Returns { allowed, probe, known, remainingMs, failures, cooldownMs, state,
 * lastCode, lastMessage }.
 */
export const BREAKER_CHECK_SCRIPT = `${NOW}
local c = redis.call('HMGET', KEYS[1], 'state', 'failures', 'cooldown', 'openedAt', 'lastCode', 'lastMessage')
if not c[1] then return { 1, 0, 0 } end
if c[1] == 'CLOSED' then return { 1, 0, 1 } end
local cooldown = tonumber(c[3])
if c[1] == 'OPEN' then
  local remaining = tonumber(c[4]) + cooldown - now
  if remaining > 0 then
    return { 0, 0, 1, remaining, tonumber(c[2]), cooldown, 'OPEN', c[5] or '', c[6] or '' }
  end
end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', math.max(1, cooldown)) then
  redis.call('HSET', KEYS[1], 'state', 'HALF_OPEN')
  return { 1, 1, 1 }
end
return { 0, 0, 1, 0, tonumber(c[2]), cooldown, 'HALF_OPEN', c[5] or '', c[6] or '' }
`;

/** KEYS: circuit, probe. ARGV: threshold, cooldownMs, maxCooldownMs, code, message. */
export const BREAKER_FAILURE_SCRIPT = `${NOW}
local threshold = tonumber(ARGV[1])
local base = tonumber(ARGV[2])
local maxCooldown = tonumber(ARGV[3])
local c = redis.call('HMGET', KEYS[1], 'state', 'failures', 'cooldown')
local state = c[1] or 'CLOSED'
local failures = (tonumber(c[2]) or 0) + 1
local cooldown = tonumber(c[3]) or base
local fields = { 'failures', failures, 'lastCode', ARGV[4], 'lastMessage', ARGV[5], 'cooldown', cooldown }
if state == 'HALF_OPEN' then
  cooldown = math.min(maxCooldown, cooldown * 2)
  fields = { 'failures', failures, 'lastCode', ARGV[4], 'lastMessage', ARGV[5], 'cooldown', cooldown, 'state', 'OPEN', 'openedAt', now }
  redis.call('DEL', KEYS[2])
elseif state == 'CLOSED' and failures >= threshold then
  fields = { 'failures', failures, 'lastCode', ARGV[4], 'lastMessage', ARGV[5], 'cooldown', cooldown, 'state', 'OPEN', 'openedAt', now }
elseif not c[1] then
  table.insert(fields, 'state')
  table.insert(fields, 'CLOSED')
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], 86400000)
return failures
`;

/** KEYS: circuit, probe. A success closes the circuit: the hash and the probe key go. */
export const BREAKER_SUCCESS_SCRIPT = `
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`;

/** Options for {@link RedisCircuitBreaker}: those of the local breaker plus the connection. */
export interface RedisCircuitBreakerOptions extends ToolCircuitBreakerOptions {
  /** The shared connection. */
  connection: RedisConnection;
}

type CheckReply = [number, number, number, number?, number?, number?, string?, string?, string?];
type Commands = {
  toolsysBreakerCheck(circuit: string, probe: string): Promise<CheckReply>;
  toolsysBreakerFailure(
    circuit: string,
    probe: string,
    threshold: number,
    cooldownMs: number,
    maxCooldownMs: number,
    code: string,
    message: string,
  ): Promise<number>;
  toolsysBreakerSuccess(circuit: string, probe: string): Promise<number>;
};

const ALLOWED: CircuitDecision = Object.freeze({ allowed: true, probe: false });
const PROBE: CircuitDecision = Object.freeze({ allowed: true, probe: true });

/**
 * A circuit breaker shared by every replica: one replica's failures open it for all, exactly one
 * half-open probe runs across them, and only infrastructure failures count (core's
 * `isInfrastructureFailure`); the denial text is the local breaker's. Outcomes are also recorded
 * in an in-process {@link ToolCircuitBreaker}, which decides while Redis is down or slow.
 */
export class RedisCircuitBreaker implements CircuitBreakerLike {
  /** The in-process breaker used while fallen back (fed with every outcome). */
  readonly local: ToolCircuitBreaker;
  readonly #connection: RedisConnection;
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #maxCooldownMs: number;
  /** Tools whose shared circuit exists (a success must then close it). */
  readonly #known = new Set<string>();
  /** The last shared denial seen per tool, for snapshots. */
  readonly #lastSeen = new Map<string, CircuitBreakerState>();

  constructor(options: RedisCircuitBreakerOptions) {
    this.#connection = options.connection;
    this.local = new ToolCircuitBreaker(options);
    this.#threshold = Math.max(1, options.failureThreshold ?? 5);
    this.#cooldownMs = Math.max(0, options.cooldownMs ?? 30_000);
    this.#maxCooldownMs = Math.max(this.#cooldownMs, options.maxCooldownMs ?? 300_000);
    const redis = this.#connection.redis;
    const defined = redis as unknown as Partial<Commands>;
    if (!defined.toolsysBreakerCheck) {
      redis.defineCommand('toolsysBreakerCheck', { numberOfKeys: 2, lua: BREAKER_CHECK_SCRIPT });
      redis.defineCommand('toolsysBreakerFailure', {
        numberOfKeys: 2,
        lua: BREAKER_FAILURE_SCRIPT,
      });
      redis.defineCommand('toolsysBreakerSuccess', {
        numberOfKeys: 2,
        lua: BREAKER_SUCCESS_SCRIPT,
      });
    }
  }

  /** Decides a call: the shared circuit in one bounded round trip, or the local one when fallen back. */
  check(toolId: string): CircuitDecision | Promise<CircuitDecision> {
    if (this.#connection.mode !== 'shared') return this.local.check(toolId);
    const [circuit, probe] = this.#keys(toolId);
    return this.#connection
      .run((redis) => (redis as unknown as Commands).toolsysBreakerCheck(circuit, probe))
      .then((reply) => {
        if (!reply) return this.local.check(toolId);
        const [allowed, isProbe, known, remaining, failures, cooldown, state, code, message] =
          reply;
        if (known === 1) this.#known.add(toolId);
        else {
          this.#known.delete(toolId);
          this.#lastSeen.delete(toolId);
        }
        if (allowed === 1) return isProbe === 1 ? PROBE : ALLOWED;
        const view = {
          state: (state ?? 'OPEN') as CircuitState,
          failures: failures ?? 0,
          cooldownMs: cooldown ?? this.#cooldownMs,
          lastError: code ? { code, message: message ?? '' } : undefined,
        };
        const remainingMs = Math.max(0, remaining ?? 0);
        this.#lastSeen.set(toolId, {
          toolId,
          state: view.state,
          consecutiveFailures: view.failures,
          cooldownMs: view.cooldownMs,
          probeInMs: remainingMs,
          ...(view.lastError ? { lastError: view.lastError } : {}),
        });
        return { allowed: false, failure: circuitOpenFailure(toolId, view, remainingMs) };
      });
  }

  /** Records an outcome locally and, without waiting, in Redis. */
  record(toolId: string, result: ToolResult): void {
    this.local.record(toolId, result);
    if (this.#connection.mode !== 'shared') return;
    const [circuit, probe] = this.#keys(toolId);
    if (result.ok || !isInfrastructureFailure(result)) {
      // Most calls succeed on a circuit that does not exist: no write then.
      if (!this.#known.has(toolId)) return;
      this.#known.delete(toolId);
      this.#lastSeen.delete(toolId);
      void this.#connection.run((redis) =>
        (redis as unknown as Commands).toolsysBreakerSuccess(circuit, probe),
      );
      return;
    }
    this.#known.add(toolId);
    void this.#connection.run((redis) =>
      (redis as unknown as Commands).toolsysBreakerFailure(
        circuit,
        probe,
        this.#threshold,
        this.#cooldownMs,
        this.#maxCooldownMs,
        result.error.code,
        result.error.message.slice(0, 500),
      ),
    );
  }

  /**
   * Circuits as plain JSON: while shared, the shared circuits this replica last saw refusing
   * (merged over its local view); while fallen back, the local breaker's.
   */
  snapshot(): CircuitBreakerState[] {
    const local = this.local.snapshot();
    if (this.#connection.mode !== 'shared') return local;
    const merged = new Map(local.map((state) => [state.toolId, state]));
    for (const [toolId, state] of this.#lastSeen) merged.set(toolId, state);
    return [...merged.values()].sort((a, b) => a.toolId.localeCompare(b.toolId));
  }

  #keys(toolId: string): [string, string] {
    return [this.#connection.key('breaker', toolId), this.#connection.key('probe', toolId)];
  }
}
