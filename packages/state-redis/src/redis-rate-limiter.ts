import {
  type RateLimitDecision,
  type RateLimiterLike,
  type RateLimiterState,
  SYSTEM_CLOCK,
  type ToolClock,
  type ToolRateLimiterOptions,
} from '@toolsys/core-tool-registry';
import type { Redis } from 'ioredis';
import type { CircuitPasses } from './circuit-pass.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * The token bucket of core's ToolRateLimiter, atomically in one script: capacity = the per-minute
 * quota, continuous refill of `quota / 60 000` tokens per ms, one token per call, retry-after =
 * time until one token is back. Time comes from Redis `TIME`, so replicas with skewed clocks agree.
 *
 * Exactly-once accounting: each replica sends how many calls of the tool it admitted in all
 * (ARGV[3], by Redis or by its own fair share while Redis was missed) and the hash keeps, per
 * replica, how many of them Redis has charged (field ARGV[2]). The difference is charged now, so a
 * call admitted locally is charged once when Redis answers again, and a script that timed out but
 * ran anyway (its token taken, its charge counted) is not charged a second time. Tokens may go
 * below zero (down to minus the capacity) for such late charges: the quota then holds over the
 * next refill instead of being exceeded. A replica new to the hash starts at its admitted count
 * minus ARGV[4] (the calls it decided alone since its last reply), so only those are charged.
 *
 * What is read back is checked before it is used: tokens must be a number from minus the capacity
 * to the capacity, the time one within the last hour (and not ahead of Redis's clock), a charged
 * count a non-negative number. Anything else (`inf`, `nan`, `1e308`, text) was not written by a
 * replica: the bucket counts as absent (full) and is overwritten, so garbage never lifts the limit
 * and never locks the tool. ARGV[5] is 0 only to charge, else the most tokens to take: one for
 * the call, the rest a lease the replica spends without asking (granted only while the bucket
 * holds more than twice that per live replica; see {@link LEASE_MS}). KEYS[2] is the
 * heartbeat set: the replicas alive come back with every reply, so the fair share a replica falls
 * back on counts a replica that joined a moment ago. KEYS[3], when given, is the tool's shared
 * circuit breaker: whether it exists comes back too, so that the breaker check of an admitted call
 * needs no round trip of its own while no replica has recorded a failure (see `CircuitPasses`).
 * Returns { allowed (1|0), retryAfterMs, tokens (as text), invalid (1 when garbage was reset),
 * charged, live replicas, circuit exists (1|0), tokens granted }.
 */
export const TOKEN_BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local capacity = tonumber(ARGV[1])
local refill = capacity / 60000
local admitted = tonumber(ARGV[3]) or 0
local alone = tonumber(ARGV[4]) or 0
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'updated', 'capacity', ARGV[2])
local tokens = tonumber(stored[1])
local updated = tonumber(stored[2])
local charged = tonumber(stored[4])
local invalid = 0
if stored[1] or stored[2] then
  -- NaN fails every comparison, so each check is written to pass only for a valid value.
  local validTokens = tokens ~= nil and tokens >= -capacity and tokens <= capacity
  local validTime = updated ~= nil and updated >= now - 3600000 and updated <= now + 1000
  if not (validTokens and validTime) then invalid = 1 end
end
if stored[4] and not (charged ~= nil and charged >= 0 and charged <= 1e15) then
  invalid = 1
  charged = nil
end
if invalid == 1 or tokens == nil or updated == nil or tonumber(stored[3]) ~= capacity then
  tokens = capacity
  updated = now
end
if charged == nil then charged = math.max(0, admitted - alone) end
local elapsed = now - updated
if elapsed > 0 then
  tokens = math.min(capacity, tokens + elapsed * refill)
  updated = now
end
if admitted > charged then
  tokens = math.max(-capacity, tokens - (admitted - charged))
  charged = admitted
end
local allowed = 0
local retry = 0
local granted = 0
local live = redis.call('ZCOUNT', KEYS[2], math.floor(now), '+inf')
local take = tonumber(ARGV[5]) or 0
if take >= 1 then
  if tokens >= 1 then
    -- A lease of more than one token only while the bucket holds plenty: at most a share of
    -- what is left, so that near the quota every call takes exactly one token again.
    granted = math.max(1, math.min(math.floor(take), math.floor(tokens / (2 * math.max(1, live)))))
    tokens = tokens - granted
    charged = charged + granted
    allowed = 1
  else
    retry = math.max(1, math.ceil((1 - tokens) / refill))
  end
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(updated), 'capacity', tostring(capacity), ARGV[2], tostring(charged))
-- Long enough for a bucket in debt to refill completely.
redis.call('PEXPIRE', KEYS[1], 121000)
local circuit = 1
if KEYS[3] then circuit = redis.call('EXISTS', KEYS[3]) end
return { allowed, retry, tostring(tokens), invalid, tostring(charged), live, circuit, granted }
`;

/** Options for {@link RedisRateLimiter}. */
export interface RedisRateLimiterOptions extends ToolRateLimiterOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** This replica's id: its charged count in each bucket is kept under it. */
  replicaId: string;
  /**
   * Replicas alive (this one included), from the heartbeat: the divisor of the fair share while
   * Redis is missed. Default: always 1.
   */
  liveReplicas?: () => number;
  /** Told the live-replica count each reply carries (see {@link TOKEN_BUCKET_SCRIPT}). */
  observeLiveReplicas?: (count: number) => void;
  /**
   * The key of a tool's shared circuit breaker, read by the same script: when Redis admits a call
   * and the circuit does not exist, the call gets a pass (see {@link CircuitPasses}) and its
   * breaker check costs no round trip. Default: no circuit is read.
   */
  circuitKey?: (toolId: string) => string;
  /** Where passes go (with `circuitKey`). */
  passes?: CircuitPasses;
}

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true });

/**
 * How long a lease may be spent. A replica that asks Redis for a token of a tool with a large
 * quota gets a few more with it (a lease), and spends them without a round trip for at most this
 * long; what is left then is dropped, never returned (the bucket paid for it: a lease can only
 * make the replicas admit less than the quota, never more). The lease also carries the breaker's
 * state: while it lasts, a circuit another replica opened may be seen this much later.
 */
export const LEASE_MS = 250;

/**
 * Most tokens asked with a call: the call's own plus a lease of about 60 ms of the quota's refill
 * (`quota / 1 000`), so a quota under 1 000 calls a minute is asked one token at a time, as
 * before. Redis grants the lease only while the bucket holds more than twice it per live replica.
 */
export function tokensToAsk(ratePerMinute: number): number {
  return 1 + Math.floor(ratePerMinute / 1_000);
}

type BucketReply = [
  number,
  number,
  string,
  number | undefined,
  string | undefined,
  number | undefined,
  (number | undefined)?,
  (number | undefined)?,
];

interface BucketCommands {
  toolsysTokenBucket(
    key: string,
    replicas: string,
    circuit: string,
    capacity: number,
    field: string,
    admitted: number,
    alone: number,
    take: number,
  ): Promise<BucketReply>;
}

/** This replica's bucket while it decides alone: its fair share of the quota. */
interface ShareBucket {
  capacity: number;
  tokens: number;
  refillPerMs: number;
  updatedAt: number;
}

/** What this replica knows of one tool's shared bucket. */
interface Account {
  ratePerMinute: number;
  /** Calls of the tool this replica admitted, in all. */
  admitted: number;
  /** Of them, decided alone (fair share) since the last reply from Redis. */
  alone: number;
  /** How many of them Redis had charged at its last reply. */
  charged: number;
  /** Tokens in the shared bucket at the last reply, and when (this replica's clock). */
  sharedTokens: number | undefined;
  sharedAt: number;
  /** The fair-share bucket, while deciding alone. */
  share: ShareBucket | undefined;
  /** Tokens of the lease left to spend (already charged to the shared bucket), and until when. */
  lease: number;
  leaseUntil: number;
  /**
   * Whether the tool's shared circuit was absent at the lease's reply, and the count of failures
   * recorded here then (see {@link CircuitPasses.drops}): calls on the lease get a breaker pass
   * only while both still hold.
   */
  circuitClear: boolean;
  circuitDrops: number;
}

/**
 * A rate limiter whose buckets live in Redis, so N replicas together admit the configured rate,
 * not N times it — also while Redis is missed:
 *
 * - When Redis does not answer within its bound, or is down, the replica decides alone on its
 *   fair share: a bucket of `quota / live replicas` (the count from the heartbeat, the last known
 *   one while Redis is away), refilled at the same fraction of the rate, starting from the same
 *   fraction of what the shared bucket held at its last reply. All replicas together thus admit
 *   at most what the shared bucket would have.
 * - What it admitted alone is charged to the shared bucket exactly once when Redis answers again
 *   (see {@link TOKEN_BUCKET_SCRIPT}), also when a timed-out script ran after all.
 * - A tool with a large quota is leased a few tokens with each round trip ({@link tokensToAsk},
 *   {@link LEASE_MS}), charged when granted: leases never let the replicas pass the quota.
 */
export class RedisRateLimiter implements RateLimiterLike {
  readonly #connection: RedisConnection;
  readonly #clock: ToolClock;
  readonly #field: string;
  readonly #liveReplicas: () => number;
  readonly #observeLive: (count: number) => void;
  readonly #replicasKey: string;
  readonly #accounts = new Map<string, Account>();
  readonly #unsubscribe: () => void;
  readonly #circuitKey: ((toolId: string) => string) | undefined;
  readonly #passes: CircuitPasses | undefined;

  constructor(options: RedisRateLimiterOptions) {
    this.#connection = options.connection;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#field = `charged:${options.replicaId}`;
    this.#liveReplicas = options.liveReplicas ?? (() => 1);
    this.#observeLive = options.observeLiveReplicas ?? (() => {});
    this.#replicasKey = this.#connection.key('replicas');
    this.#circuitKey = options.passes ? options.circuitKey : undefined;
    this.#passes = options.passes;
    // Three keys always (a script's key count is fixed): without a circuit to read, the third is
    // the bucket again and its answer is ignored.
    this.#connection.defineScript('toolsysTokenBucket', 3, TOKEN_BUCKET_SCRIPT);
    this.#unsubscribe = this.#connection.onResync((client) => this.#chargeAll(client));
  }

  /** Takes one token; synchronous while unlimited or fallen back, else one bounded round trip. */
  tryAcquire(
    toolId: string,
    ratePerMinute: number | undefined,
  ): RateLimitDecision | Promise<RateLimitDecision> {
    if (ratePerMinute === undefined || !(ratePerMinute > 0) || !Number.isFinite(ratePerMinute)) {
      return ALLOWED;
    }
    const account = this.#account(toolId, ratePerMinute);
    if (account.lease > 0) {
      // Spent also while Redis is missed: its tokens were taken from the shared bucket.
      if (this.#clock.now() < account.leaseUntil) {
        account.lease -= 1;
        if (
          this.#passes &&
          account.circuitClear &&
          this.#passes.drops(toolId) === account.circuitDrops
        ) {
          this.#passes.grant(toolId);
        }
        return ALLOWED;
      }
      account.lease = 0;
    }
    if (this.#connection.mode !== 'shared') return this.#decideAlone(account);
    const key = this.#connection.key('rate', toolId);
    const circuit = this.#circuitKey?.(toolId) ?? key;
    let decidedAlone: RateLimitDecision | undefined;
    return this.#connection
      .run(
        (redis) =>
          (redis as unknown as BucketCommands).toolsysTokenBucket(
            key,
            this.#replicasKey,
            circuit,
            ratePerMinute,
            this.#field,
            account.admitted,
            account.alone,
            tokensToAsk(ratePerMinute),
          ),
        // The script ran after all: its token was taken and its charge counted in Redis, so the
        // call (already decided alone) is not counted again; only what Redis knows is updated.
        { onLate: (reply) => this.#accept(account, key, reply, decidedAlone?.allowed === true) },
      )
      .then((reply) => {
        if (!reply) {
          decidedAlone = this.#decideAlone(account);
          return decidedAlone;
        }
        const allowed = this.#accept(account, key, reply, false);
        if (allowed) {
          const clear = this.#passes !== undefined && circuit !== key && reply[6] === 0;
          if (clear) this.#passes?.grant(toolId);
          const granted = Number(reply[7] ?? 1);
          if (Number.isInteger(granted) && granted > 1) {
            // Calls in flight together may each bring a lease back: they add up, none is lost.
            const now = this.#clock.now();
            account.lease = (now < account.leaseUntil ? account.lease : 0) + granted - 1;
            account.leaseUntil = now + LEASE_MS;
            account.circuitClear = clear;
            account.circuitDrops = this.#passes?.drops(toolId) ?? 0;
          }
          return ALLOWED;
        }
        // An empty bucket has a token back within 60 000 / rate ms, whatever the reply says
        // (longer only while it is in debt, at most twice that).
        const longest = Math.ceil(120_000 / ratePerMinute);
        const retry = Number(reply[1]);
        return {
          allowed: false,
          retryAfterMs: Number.isFinite(retry) ? Math.min(Math.max(1, retry), longest) : longest,
        };
      });
  }

  /**
   * Every bucket's state, sorted by tool id: the shared buckets as last seen by this replica, or
   * its fair-share bucket where it decides alone.
   */
  snapshot(): RateLimiterState[] {
    const now = this.#clock.now();
    return [...this.#accounts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([toolId, account]) => {
        const share = account.share;
        if (share) this.#refill(share, now);
        const tokens = share ? share.tokens : (account.sharedTokens ?? account.ratePerMinute);
        return {
          toolId,
          ratePerMinute: share ? share.capacity : account.ratePerMinute,
          tokens: Math.round(Math.max(0, tokens) * 1000) / 1000,
        };
      });
  }

  /** Stops charging on resync. */
  close(): void {
    this.#unsubscribe();
  }

  #account(toolId: string, ratePerMinute: number): Account {
    let account = this.#accounts.get(toolId);
    if (!account) {
      account = {
        ratePerMinute,
        admitted: 0,
        alone: 0,
        charged: 0,
        sharedTokens: undefined,
        sharedAt: 0,
        share: undefined,
        lease: 0,
        leaseUntil: 0,
        circuitClear: false,
        circuitDrops: 0,
      };
      this.#accounts.set(toolId, account);
    } else if (account.ratePerMinute !== ratePerMinute) {
      account.ratePerMinute = ratePerMinute;
      account.share = undefined;
      account.lease = 0;
    }
    return account;
  }

  /** Takes in the reply of a script; returns whether it admitted (counted here unless `late`). */
  #accept(account: Account, key: string, reply: BucketReply, late: boolean): boolean {
    const [allowed, , tokens, invalid, charged, live] = reply;
    if (typeof live === 'number' && live > 0) this.#observeLive(live);
    if (invalid === 1) this.#connection.reportInvalid(key, 'a rate bucket');
    const left = Number(tokens);
    const capacity = account.ratePerMinute;
    account.sharedTokens = Number.isFinite(left)
      ? Math.min(Math.max(left, -capacity), capacity)
      : 0;
    account.sharedAt = this.#clock.now();
    account.alone = 0;
    const chargedCount = Number(charged);
    if (Number.isFinite(chargedCount)) account.charged = chargedCount;
    if (!late) account.share = undefined;
    if (allowed === 1 && !late) {
      // A lease counts as admitted when granted: Redis charged it whole.
      const granted = Number(reply[7] ?? 1);
      account.admitted += Number.isInteger(granted) && granted >= 1 ? granted : 1;
    }
    return allowed === 1;
  }

  /** Decides on this replica's fair share of the quota. */
  #decideAlone(account: Account): RateLimitDecision {
    const now = this.#clock.now();
    const live = Math.max(1, Math.floor(this.#liveReplicas()));
    const capacity = account.ratePerMinute / live;
    let share = account.share;
    if (!share || share.capacity !== capacity) {
      const quota = account.ratePerMinute;
      // What the shared bucket holds now, were nobody calling: its last reply plus the refill.
      const estimate =
        account.sharedTokens === undefined
          ? quota
          : Math.min(quota, account.sharedTokens + ((now - account.sharedAt) * quota) / 60_000);
      share = {
        capacity,
        tokens: Math.min(capacity, estimate / live),
        refillPerMs: capacity / 60_000,
        updatedAt: now,
      };
      account.share = share;
    }
    this.#refill(share, now);
    if (share.tokens >= 1) {
      share.tokens -= 1;
      account.admitted += 1;
      account.alone += 1;
      return ALLOWED;
    }
    const retry = Math.ceil((1 - share.tokens) / share.refillPerMs);
    return {
      allowed: false,
      retryAfterMs: Math.min(
        Math.max(1, retry),
        Math.ceil((120_000 * live) / account.ratePerMinute),
      ),
    };
  }

  #refill(share: ShareBucket, now: number): void {
    const elapsed = now - share.updatedAt;
    if (elapsed > 0) {
      share.tokens = Math.min(share.capacity, share.tokens + elapsed * share.refillPerMs);
      share.updatedAt = now;
    }
  }

  /** Charges what was admitted alone, for every tool, once Redis answers again. */
  async #chargeAll(client: Redis): Promise<void> {
    const owing = [...this.#accounts.entries()].filter(
      ([, account]) => account.admitted > account.charged || account.alone > 0,
    );
    if (owing.length === 0) return;
    const pipeline = client.pipeline() as unknown as BucketCommands & {
      exec(): Promise<[Error | null, unknown][] | null>;
    };
    for (const [toolId, account] of owing) {
      const key = this.#connection.key('rate', toolId);
      pipeline.toolsysTokenBucket(
        key,
        this.#replicasKey,
        key,
        account.ratePerMinute,
        this.#field,
        account.admitted,
        account.alone,
        0,
      );
    }
    const results = await pipeline.exec();
    owing.forEach(([toolId, account], index) => {
      const [error, reply] = results?.[index] ?? [new Error('no reply')];
      if (error || !Array.isArray(reply)) return;
      this.#accept(account, this.#connection.key('rate', toolId), reply as BucketReply, false);
    });
  }
}
