import {
  type CircuitBreakerLike,
  type CircuitBreakerState,
  type CircuitDecision,
  type CircuitState,
  circuitOpenFailure,
  isInfrastructureFailure,
  SYSTEM_CLOCK,
  ToolCircuitBreaker,
  type ToolCircuitBreakerOptions,
  type ToolClock,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import type { Pipeline, Redis } from 'ioredis';
import type { CircuitPasses } from './circuit-pass.js';
import type { RedisConnection } from './redis-connection.js';

// The state machine of core's ToolCircuitBreaker, in Redis hashes (state, failures, cooldown,
// openedAt, lastCode, lastMessage) with the time of Redis `TIME`. The single HALF_OPEN probe across
// all replicas is a key taken with SET NX PX (expiring after a cooldown, as the local breaker
// replaces a probe that never reported).
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- A circuit hash as replicas write it: a known state, a failure count, a cooldown of at most a
-- day (the hash's lifetime) and an opening time within two days, not ahead of Redis's clock.
-- Anything else (inf, nan, 1e308, text) came from elsewhere and counts as no circuit at all, so
-- garbage can neither lock a tool for good nor lift its breaker. NaN fails every comparison, so
-- each check passes only for a valid value.
local function isValidCircuit(c)
  if not (c[1] or c[2] or c[3] or c[4]) then return true end
  if c[1] ~= 'CLOSED' and c[1] ~= 'OPEN' and c[1] ~= 'HALF_OPEN' then return false end
  local failures = tonumber(c[2])
  if c[2] and not (failures and failures >= 0 and failures <= 1000000000) then return false end
  local cooldown = tonumber(c[3])
  if c[3] and not (cooldown and cooldown >= 0 and cooldown <= 86400000) then return false end
  if c[1] ~= 'CLOSED' and not cooldown then return false end
  local openedAt = tonumber(c[4])
  if c[4] and not (openedAt and openedAt >= now - 172800000 and openedAt <= now + 1000) then
    return false
  end
  if c[1] == 'OPEN' and not openedAt then return false end
  return true
end
`;

/**
 * KEYS: circuit, probe. Returns { allowed, probe, known, remainingMs, failures, cooldownMs, state,
 * lastCode, lastMessage }; an invalid circuit is deleted and answered { 1, 0, 0, 0, 0, 0, '', '',
 * '', 1 } (allowed, no circuit, the last element saying it was invalid).
 */
export const BREAKER_CHECK_SCRIPT = `${NOW}
local c = redis.call('HMGET', KEYS[1], 'state', 'failures', 'cooldown', 'openedAt', 'lastCode', 'lastMessage')
if not isValidCircuit(c) then
  redis.call('DEL', KEYS[1], KEYS[2])
  return { 1, 0, 0, 0, 0, 0, '', '', '', 1 }
end
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

/**
 * KEYS: circuit, probe. ARGV: threshold, cooldownMs, maxCooldownMs, code, message, the replica's
 * field, the replica's count of failures of the tool in all. The circuit keeps, per replica, the
 * count it has taken (the field); only what is new is added, so a failure is counted once even
 * when its script timed out, ran anyway and the failure is pushed again on resync. Returns
 * { failures, invalid (1 when an invalid circuit was replaced by a fresh one) }.
 */
export const BREAKER_FAILURE_SCRIPT = `${NOW}
local threshold = tonumber(ARGV[1])
local base = tonumber(ARGV[2])
local maxCooldown = tonumber(ARGV[3])
local c = redis.call('HMGET', KEYS[1], 'state', 'failures', 'cooldown', 'openedAt')
local invalid = 0
if not isValidCircuit(c) then
  -- Counted on a fresh circuit; the garbage fields go.
  redis.call('DEL', KEYS[1])
  c = {}
  invalid = 1
end
local field = ARGV[6] or 'failed:unknown'
local total = tonumber(ARGV[7]) or 0
local taken = tonumber(redis.call('HGET', KEYS[1], field))
local new = 1
if ARGV[7] and taken and taken >= 0 and taken <= total then new = total - taken end
if new <= 0 then return { tonumber(c[2]) or 0, invalid } end
local state = c[1] or 'CLOSED'
local failures = (tonumber(c[2]) or 0) + new
local cooldown = tonumber(c[3]) or base
local fields = { field, total, 'failures', failures, 'lastCode', ARGV[4], 'lastMessage', ARGV[5], 'cooldown', cooldown, 'failedAt', now }
if state == 'HALF_OPEN' then
  cooldown = math.min(maxCooldown, cooldown * 2)
  fields = { field, total, 'failures', failures, 'lastCode', ARGV[4], 'lastMessage', ARGV[5], 'cooldown', cooldown, 'failedAt', now, 'state', 'OPEN', 'openedAt', now }
  redis.call('DEL', KEYS[2])
elseif state == 'CLOSED' and failures >= threshold then
  fields = { field, total, 'failures', failures, 'lastCode', ARGV[4], 'lastMessage', ARGV[5], 'cooldown', cooldown, 'failedAt', now, 'state', 'OPEN', 'openedAt', now }
elseif not c[1] then
  table.insert(fields, 'state')
  table.insert(fields, 'CLOSED')
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], 86400000)
return { failures, invalid }
`;

/**
 * KEYS: circuit, probe, recovered. A success closes the circuit: the hash and the probe key go,
 * and the time of the recovery stays a day (so that failures older than it, pushed by a replica
 * back from a Redis outage, do not reopen the circuit).
 */
export const BREAKER_SUCCESS_SCRIPT = `${NOW}
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SET', KEYS[3], now, 'PX', 86400000)
return 1
`;

/**
 * KEYS: circuit, probe, recovered. Merges what one replica recorded while Redis could not take it
 * into the shared circuit. ARGV: threshold, cooldownMs, maxCooldownMs, failures (consecutive, since
 * the replica's last success), failedAgo, succeededAgo (ms before now of the last failure and the
 * last success; -1: none), openedAgo (ms since the replica's own circuit opened; -1: not open),
 * the replica's cooldownMs, code, message, the replica's field and its count of failures in all
 * (failures the circuit already took from this replica, through a script that answered too late,
 * are not added again). Ages rather than times, so replica clocks need not
 * agree with Redis. Rules: events are ordered by time; a success newer than every shared failure
 * closes the circuit; failures older than the shared recovery are dropped; otherwise failures add
 * up and, of the two pauses, the one that ends later wins (the more pessimistic).
 * Returns the resulting state (CLOSED when no circuit remains).
 */
export const BREAKER_RECONCILE_SCRIPT = `${NOW}
local threshold = tonumber(ARGV[1])
local base = tonumber(ARGV[2])
local maxCooldown = tonumber(ARGV[3])
local pushed = tonumber(ARGV[4])
local field = ARGV[11] or 'failed:unknown'
local total = tonumber(ARGV[12]) or 0
local taken = tonumber(redis.call('HGET', KEYS[1], field))
if ARGV[12] and taken and taken >= 0 and taken <= total then
  pushed = math.min(pushed, total - taken)
end
local function at(ago)
  local value = tonumber(ago)
  if value < 0 then return nil end
  return now - value
end
local failedAt = at(ARGV[5])
local succeededAt = at(ARGV[6])
local openedHere = at(ARGV[7])
local cooldownHere = tonumber(ARGV[8])
local c = redis.call('HMGET', KEYS[1], 'state', 'failures', 'cooldown', 'openedAt', 'failedAt')
local sharedFailedAt = tonumber(c[5])
if not isValidCircuit(c) or (c[5] and not (sharedFailedAt and sharedFailedAt <= now + 1000 and sharedFailedAt >= now - 172800000)) then
  redis.call('DEL', KEYS[1])
  c = {}
end
sharedFailedAt = tonumber(c[5]) or 0
if pushed == 0 or not failedAt then
  if succeededAt and c[1] and sharedFailedAt < succeededAt then
    redis.call('DEL', KEYS[1], KEYS[2])
    redis.call('SET', KEYS[3], succeededAt, 'PX', 86400000)
    return 'CLOSED'
  end
  return c[1] or 'CLOSED'
end
local recovered = tonumber(redis.call('GET', KEYS[3]))
if recovered and not (recovered <= now + 1000) then
  -- A recovery time ahead of the clock (or nan) would drop every failure: not a replica's.
  redis.call('DEL', KEYS[3])
  recovered = nil
end
if recovered and recovered > failedAt then return c[1] or 'CLOSED' end
local failures = pushed
if c[1] and (not succeededAt or sharedFailedAt > succeededAt) then
  failures = failures + (tonumber(c[2]) or 0)
end
local state = c[1] or 'CLOSED'
local cooldown = tonumber(c[3]) or base
local openedAt = tonumber(c[4])
local sharedEnd = nil
if state == 'OPEN' and openedAt then sharedEnd = openedAt + cooldown end
if openedHere and (not sharedEnd or openedHere + cooldownHere > sharedEnd) then
  -- The replica's pause ends later: keep its end, and the longer cooldown for the next doubling.
  state = 'OPEN'
  cooldown = math.min(maxCooldown, math.max(cooldown, cooldownHere))
  openedAt = openedHere + cooldownHere - cooldown
elseif not sharedEnd and state ~= 'HALF_OPEN' and failures >= threshold then
  state = 'OPEN'
  openedAt = failedAt
end
local fields = { field, total, 'state', state, 'failures', failures, 'cooldown', cooldown, 'failedAt', math.max(sharedFailedAt, failedAt) }
if openedAt then
  table.insert(fields, 'openedAt')
  table.insert(fields, openedAt)
end
if failedAt >= sharedFailedAt then
  table.insert(fields, 'lastCode')
  table.insert(fields, ARGV[9])
  table.insert(fields, 'lastMessage')
  table.insert(fields, ARGV[10])
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], 86400000)
return state
`;

/** Options for {@link RedisCircuitBreaker}: those of the local breaker plus the connection. */
export interface RedisCircuitBreakerOptions extends ToolCircuitBreakerOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** This replica's id: the failures a circuit took from it are counted under it. */
  replicaId?: string;
  /**
   * Passes of calls whose circuit the rate limiter's script found absent (see
   * {@link CircuitPasses}): such a check is answered without a round trip. Default: none.
   */
  passes?: CircuitPasses;
}

type CheckReply = [
  number,
  number,
  number,
  number?,
  number?,
  number?,
  string?,
  string?,
  string?,
  number?,
];
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
    field: string,
    total: number,
  ): Promise<[number, number]>;
  toolsysBreakerSuccess(circuit: string, probe: string, recovered: string): Promise<number>;
  toolsysBreakerReconcile(
    circuit: string,
    probe: string,
    recovered: string,
    threshold: number,
    cooldownMs: number,
    maxCooldownMs: number,
    failures: number,
    failedAgoMs: number,
    succeededAgoMs: number,
    openedAgoMs: number,
    localCooldownMs: number,
    code: string,
    message: string,
    field: string,
    total: number,
  ): Promise<CircuitState>;
};

/** What one replica recorded for a tool while Redis could not take it. */
interface OutageRecord {
  /** Consecutive infrastructure failures since the last success. */
  failures: number;
  failedAt: number | undefined;
  succeededAt: number | undefined;
  lastError: { code: string; message: string } | undefined;
}

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
  /** Outcomes recorded while Redis could not take them, merged into Redis on resync. */
  readonly #outage = new Map<string, OutageRecord>();
  readonly #clock: ToolClock;
  readonly #unsubscribe: () => void;
  readonly #field: string;
  /** Infrastructure failures of each tool recorded by this replica, in all. */
  readonly #failedTotal = new Map<string, number>();
  readonly #passes: CircuitPasses | undefined;

  constructor(options: RedisCircuitBreakerOptions) {
    this.#connection = options.connection;
    this.local = new ToolCircuitBreaker(options);
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#threshold = Math.max(1, options.failureThreshold ?? 5);
    this.#cooldownMs = Math.max(0, options.cooldownMs ?? 30_000);
    this.#maxCooldownMs = Math.max(this.#cooldownMs, options.maxCooldownMs ?? 300_000);
    this.#field = `failed:${options.replicaId ?? 'replica'}`;
    this.#passes = options.passes;
    this.#connection.defineScript('toolsysBreakerCheck', 2, BREAKER_CHECK_SCRIPT);
    this.#connection.defineScript('toolsysBreakerFailure', 2, BREAKER_FAILURE_SCRIPT);
    this.#connection.defineScript('toolsysBreakerSuccess', 3, BREAKER_SUCCESS_SCRIPT);
    this.#connection.defineScript('toolsysBreakerReconcile', 3, BREAKER_RECONCILE_SCRIPT);
    this.#unsubscribe = this.#connection.onResync((client) => this.#reconcile(client));
  }

  /**
   * Decides a call: the shared circuit in one bounded round trip (none when the rate limiter's
   * script just found no circuit for this call), or the local one when fallen back.
   */
  check(toolId: string): CircuitDecision | Promise<CircuitDecision> {
    if (this.#connection.mode !== 'shared') return this.local.check(toolId);
    if (this.#passes?.take(toolId)) {
      this.#known.delete(toolId);
      this.#lastSeen.delete(toolId);
      return ALLOWED;
    }
    const [circuit, probe] = this.#keys(toolId);
    return this.#connection
      .run((redis) => (redis as unknown as Commands).toolsysBreakerCheck(circuit, probe))
      .then((reply) => {
        if (!reply) return this.local.check(toolId);
        const [
          allowed,
          isProbe,
          known,
          remaining,
          failures,
          cooldown,
          state,
          code,
          message,
          invalid,
        ] = reply;
        if (invalid === 1) this.#connection.reportInvalid(circuit, 'a circuit breaker');
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
        // Bounded whatever Redis says: a pause never lasts past the longest cooldown.
        const remainingMs = Math.min(Math.max(0, Number(remaining) || 0), this.#maxCooldownMs);
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
    const failed = !result.ok && isInfrastructureFailure(result);
    const at = this.#clock.now();
    const total = (this.#failedTotal.get(toolId) ?? 0) + (failed ? 1 : 0);
    if (failed) {
      this.#failedTotal.set(toolId, total);
      this.#passes?.drop(toolId);
    }
    if (this.#connection.mode !== 'shared') {
      this.#remember(toolId, result, at);
      return;
    }
    const [circuit, probe, recovered] = this.#keys(toolId);
    if (!failed) {
      // Most calls succeed on a circuit that does not exist: no write then.
      if (!this.#known.has(toolId)) return;
      this.#known.delete(toolId);
      this.#lastSeen.delete(toolId);
      void this.#connection
        .run((redis) =>
          (redis as unknown as Commands).toolsysBreakerSuccess(circuit, probe, recovered),
        )
        .then((reply) => {
          if (reply === undefined) this.#remember(toolId, result, at);
        });
      return;
    }
    this.#known.add(toolId);
    void this.#connection
      .run((redis) =>
        (redis as unknown as Commands).toolsysBreakerFailure(
          circuit,
          probe,
          this.#threshold,
          this.#cooldownMs,
          this.#maxCooldownMs,
          result.error.code,
          result.error.message.slice(0, 500),
          this.#field,
          total,
        ),
      )
      .then((reply) => {
        if (reply === undefined) this.#remember(toolId, result, at);
        else if (reply[1] === 1) this.#connection.reportInvalid(circuit, 'a circuit breaker');
      });
  }

  /** Stops reconciling on resync. */
  close(): void {
    this.#unsubscribe();
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

  /** The key of a tool's shared circuit (for the rate limiter's script, see {@link CircuitPasses}). */
  circuitKey(toolId: string): string {
    return this.#connection.key('breaker', toolId);
  }

  #keys(toolId: string): [string, string, string] {
    return [
      this.#connection.key('breaker', toolId),
      this.#connection.key('probe', toolId),
      this.#connection.key('recovered', toolId),
    ];
  }

  /** Notes an outcome Redis did not take, in the order of the times it happened. */
  #remember(toolId: string, result: ToolResult, at: number): void {
    let record = this.#outage.get(toolId);
    if (!record) {
      record = { failures: 0, failedAt: undefined, succeededAt: undefined, lastError: undefined };
      this.#outage.set(toolId, record);
    }
    if (result.ok || !isInfrastructureFailure(result)) {
      if (record.failedAt !== undefined && record.failedAt > at) return;
      record.failures = 0;
      record.succeededAt = Math.max(record.succeededAt ?? at, at);
      return;
    }
    if (record.succeededAt !== undefined && record.succeededAt > at) return;
    record.failures += 1;
    record.failedAt = Math.max(record.failedAt ?? at, at);
    record.lastError = { code: result.error.code, message: result.error.message.slice(0, 500) };
  }

  /** Merges the outcomes recorded during the outage into Redis (see the reconcile script). */
  async #reconcile(redis: Redis): Promise<void> {
    // Outcomes recorded while this runs land in a fresh map and go in the next round.
    for (let round = 0; round < 3 && this.#outage.size > 0; round += 1) {
      const batch = [...this.#outage];
      this.#outage.clear();
      const now = this.#clock.now();
      const local = new Map(this.local.snapshot().map((state) => [state.toolId, state]));
      const pipeline = redis.pipeline() as unknown as Commands & { exec: Pipeline['exec'] };
      for (const [toolId, record] of batch) {
        const here = local.get(toolId);
        const openedAgo =
          here && here.state !== 'CLOSED' ? Math.max(0, here.cooldownMs - here.probeInMs) : -1;
        pipeline.toolsysBreakerReconcile(
          ...this.#keys(toolId),
          this.#threshold,
          this.#cooldownMs,
          this.#maxCooldownMs,
          record.failures,
          record.failedAt === undefined ? -1 : Math.max(0, now - record.failedAt),
          record.succeededAt === undefined ? -1 : Math.max(0, now - record.succeededAt),
          openedAgo,
          here?.cooldownMs ?? this.#cooldownMs,
          record.lastError?.code ?? '',
          record.lastError?.message ?? '',
          this.#field,
          this.#failedTotal.get(toolId) ?? 0,
        );
      }
      let results: Awaited<ReturnType<Pipeline['exec']>>;
      try {
        results = await pipeline.exec();
      } catch (error) {
        this.#restore(batch);
        throw error;
      }
      batch.forEach(([toolId], index) => {
        const [error, state] = results?.[index] ?? [new Error('no reply')];
        if (error) return;
        if (state === 'CLOSED') {
          this.#known.delete(toolId);
          this.#lastSeen.delete(toolId);
        } else this.#known.add(toolId);
      });
    }
  }

  /** Puts back records whose push failed, unless newer ones arrived meanwhile. */
  #restore(batch: [string, OutageRecord][]): void {
    for (const [toolId, record] of batch)
      if (!this.#outage.has(toolId)) this.#outage.set(toolId, record);
  }
}
