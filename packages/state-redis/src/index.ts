export { CircuitPasses } from './circuit-pass.js';
export {
  MAX_OPERATION_TIMEOUT_MS,
  MIN_OPERATION_TIMEOUT_MS,
  OPERATION_TIMEOUT_FACTOR,
  OperationTimeout,
  type OperationTimeoutOptions,
} from './operation-timeout.js';
export {
  BREAKER_CHECK_SCRIPT,
  BREAKER_FAILURE_SCRIPT,
  BREAKER_RECONCILE_SCRIPT,
  BREAKER_SUCCESS_SCRIPT,
  RedisCircuitBreaker,
  type RedisCircuitBreakerOptions,
} from './redis-circuit-breaker.js';
export {
  type MessageListener,
  RedisConnection,
  type RedisConnectionOptions,
  type ResyncListener,
  type RunOptions,
  redactUrl,
  type SharedStateMode,
  type SharedStateStatus,
  type SubscriberStatus,
} from './redis-connection.js';
export {
  RedisPermissionStore,
  type RedisPermissionStoreOptions,
} from './redis-permission-store.js';
export {
  LEASE_MS,
  RedisRateLimiter,
  type RedisRateLimiterOptions,
  TOKEN_BUCKET_SCRIPT,
  tokensToAsk,
} from './redis-rate-limiter.js';
export {
  REPLICA_ALIVE_SCRIPT,
  RedisTaskStore,
  type RedisTaskStoreOptions,
  TASK_UPDATE_SCRIPT,
} from './redis-task-store.js';
export {
  RedisTraceRing,
  type RedisTraceRingOptions,
  type SharedTraceSpan,
} from './redis-trace-ring.js';
export {
  HEARTBEAT_SCRIPT,
  ReplicaHeartbeat,
  type ReplicaHeartbeatOptions,
} from './replica-heartbeat.js';
export { REVOKE_SCRIPT } from './revoke-script.js';
export { sessionDigest } from './session-digest.js';
export { createSharedState, type SharedState, type SharedStateOptions } from './shared-state.js';
