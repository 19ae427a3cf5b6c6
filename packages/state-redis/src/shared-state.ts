import { randomBytes } from 'node:crypto';
import type { ToolCircuitBreakerOptions, ToolClock } from '@toolsys/core-tool-registry';
import { CircuitPasses } from './circuit-pass.js';
import { RedisCircuitBreaker } from './redis-circuit-breaker.js';
import { RedisConnection, type SharedStateStatus } from './redis-connection.js';
import {
  RedisPermissionStore,
  type RedisPermissionStoreOptions,
} from './redis-permission-store.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { RedisTraceRing } from './redis-trace-ring.js';
import { ReplicaHeartbeat } from './replica-heartbeat.js';

/** Options for {@link createSharedState}. */
export interface SharedStateOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  url: string;
  /** Prefix of every key. Default `toolsys:`. */
  keyPrefix?: string;
  /**
   * Longest wait for one Redis operation, in ms. Default: chosen from the measured round trips
   * (`max(300, 4 × p99)`, at most 1000; see `OperationTimeout`).
   */
  operationTimeoutMs?: number;
  /** Interval of this replica's heartbeat (the live-replica count of fair shares), in ms. Default 1000. */
  heartbeatIntervalMs?: number;
  /** Interval of the reconnect probe while fallen back, in ms. Default 1000. */
  probeIntervalMs?: number;
  /**
   * This replica's name in the shared trace ring, the heartbeat and its charges in shared buckets;
   * unique per running process. Default `r-` and 12 random hex digits, new at each start (it
   * reaches clients in the `x-toolsys-replica` header, so it says nothing about the host).
   */
  replicaId?: string;
  /** Spans kept in the shared ring. Default 300. */
  traceCapacity?: number;
  /** Breaker thresholds (also those of the local fallback). Defaults as core's breaker. */
  breaker?: Omit<ToolCircuitBreakerOptions, 'clock'>;
  /**
   * Longest time a replica honours a permission grant without Redis confirming it, in ms: the
   * worst-case delay of a revocation when its invalidation message is lost or Redis is down.
   * Default 5000.
   */
  grantMaxStalenessMs?: number;
  /**
   * Revocations kept in Redis for replicas cut off meanwhile (see
   * {@link RedisPermissionStoreOptions.revocationLogLength}). Default 1000.
   */
  grantRevocationLogLength?: number;
  /**
   * Tools this replica's configuration allows always: honoured here whatever Redis says, never
   * written to Redis (see {@link RedisPermissionStoreOptions.alwaysAllowed}).
   */
  alwaysAllowed?: Iterable<string>;
  /**
   * How long a session's grants stay in Redis without use, in ms: the session idle limit (see
   * {@link RedisPermissionStoreOptions.sessionTtlMs}). Default 30 minutes.
   */
  grantSessionTtlMs?: number;
  /**
   * The policy "always" answers belong to: only replicas with the same scope honour them (see
   * {@link RedisPermissionStoreOptions.scope}). Default: none.
   */
  grantScope?: string;
  /** Clock of the local fallbacks and of the grants' staleness window. Default: the system clock. */
  clock?: ToolClock;
  /** Where invalid values found in Redis are reported, once per key. Default: stderr. */
  warn?: (message: string) => void;
}

/** Every shared component over one connection. */
export interface SharedState {
  /** The connection (mode, status, resync). */
  readonly connection: RedisConnection;
  /** Shared token buckets. */
  readonly rateLimiter: RedisRateLimiter;
  /** Shared circuit breakers. */
  readonly circuitBreaker: RedisCircuitBreaker;
  /** Shared permission grants. */
  readonly permissionStore: RedisPermissionStore;
  /** Recent spans of every replica. */
  readonly traceRing: RedisTraceRing;
  /** This replica's heartbeat, and the replicas alive. */
  readonly heartbeat: ReplicaHeartbeat;
  /** This replica's id. */
  readonly replicaId: string;
  /** The connection's state for doctor and the dashboard. */
  status(): SharedStateStatus;
  /** Closes the connection and stops every background push. */
  close(): Promise<void>;
}

/**
 * Connects to Redis (in the background: until it answers, every component runs on local state)
 * and builds the shared rate limiter, breaker, permission store and trace ring on one connection.
 */
export function createSharedState(options: SharedStateOptions): SharedState {
  const connection = new RedisConnection({
    url: options.url,
    ...(options.keyPrefix !== undefined ? { keyPrefix: options.keyPrefix } : {}),
    ...(options.operationTimeoutMs !== undefined
      ? { operationTimeoutMs: options.operationTimeoutMs }
      : {}),
    ...(options.probeIntervalMs !== undefined ? { probeIntervalMs: options.probeIntervalMs } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
  });
  const clock = options.clock ? { clock: options.clock } : {};
  // Opaque by default: a replica's host name and pid are not for clients or other tenants to learn.
  const replicaId = options.replicaId ?? `r-${randomBytes(6).toString('hex')}`;
  const heartbeat = new ReplicaHeartbeat({
    connection,
    replicaId,
    ...(options.heartbeatIntervalMs !== undefined
      ? { intervalMs: options.heartbeatIntervalMs }
      : {}),
  });
  // One round trip per admitted call: the limiter's script also reads the tool's circuit.
  const passes = new CircuitPasses();
  const circuitBreaker = new RedisCircuitBreaker({
    connection,
    replicaId,
    passes,
    ...options.breaker,
    ...clock,
  });
  const rateLimiter = new RedisRateLimiter({
    connection,
    replicaId,
    liveReplicas: () => heartbeat.liveCount,
    observeLiveReplicas: (count) => heartbeat.observe(count),
    circuitKey: (toolId) => circuitBreaker.circuitKey(toolId),
    passes,
    ...clock,
  });
  const permissionStore = new RedisPermissionStore({
    connection,
    ...clock,
    ...(options.alwaysAllowed ? { alwaysAllowed: options.alwaysAllowed } : {}),
    ...(options.grantMaxStalenessMs !== undefined
      ? { maxStalenessMs: options.grantMaxStalenessMs }
      : {}),
    ...(options.grantRevocationLogLength !== undefined
      ? { revocationLogLength: options.grantRevocationLogLength }
      : {}),
    ...(options.grantSessionTtlMs !== undefined ? { sessionTtlMs: options.grantSessionTtlMs } : {}),
    ...(options.grantScope !== undefined ? { scope: options.grantScope } : {}),
  });
  const traceRing = new RedisTraceRing({
    connection,
    replica: replicaId,
    ...(options.traceCapacity !== undefined ? { capacity: options.traceCapacity } : {}),
  });
  return {
    connection,
    rateLimiter,
    circuitBreaker,
    permissionStore,
    traceRing,
    heartbeat,
    replicaId,
    status: () => ({
      ...connection.status(),
      grantMaxStalenessMs: permissionStore.maxStalenessMs,
      replicaId,
      liveReplicas: [...heartbeat.live()],
      operationTimeoutMs: connection.operationTimeoutMs,
    }),
    close: async () => {
      await heartbeat.close();
      rateLimiter.close();
      traceRing.close();
      permissionStore.close();
      circuitBreaker.close();
      await connection.close();
    },
  };
}
