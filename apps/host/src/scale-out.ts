// Scale-out wiring: the shared state (Redis) and telemetry (OTLP) a deployment configures, loaded
// only when configured, and their status for doctor and the dashboard.
import type { SharedState, SharedStateStatus } from '@toolsys/state-redis';
import type { OtlpTelemetry, OtlpTelemetryStatus } from '@toolsys/state-redis/otlp';
import type { ResolvedDeploymentConfig } from './config.js';
import { permissionPolicyScope, sessionIdleMs } from './session-policy.js';
import { HOST_TRACE_CAPACITY } from './trace-file.js';

/** How long a deployment waits at start for a configured Redis to answer, in ms. */
const REDIS_STARTUP_WAIT_MS = 1000;

/** Shared state (Redis) and telemetry (OTLP) of a deployment; each present only when configured. */
export interface ScaleOut {
  /** Rate limits, breakers, permission grants and recent traces shared through Redis. */
  readonly sharedState?: SharedState;
  /** Spans and metrics exported over OTLP/HTTP. */
  readonly telemetry?: OtlpTelemetry;
}

/** Whether Redis and OTLP are configured and how they fare, as plain JSON (doctor, dashboard). */
export interface ScaleOutStatus {
  /** Redis: not configured, or its mode (`shared` / fallen back to `local`) and since when. */
  readonly redis:
    | { readonly configured: false }
    | ({ readonly configured: true } & SharedStateStatus);
  /** OTLP: not configured, or the exporter's counts and last error. */
  readonly otlp:
    | { readonly configured: false }
    | ({ readonly configured: true } & OtlpTelemetryStatus);
}

/**
 * Loads the Redis and OTLP pieces a deployment configures (`state.redis`, `telemetry.otlp`). The
 * package is imported only then, so the embedded default loads no Redis or OpenTelemetry code.
 */
export async function loadScaleOut(
  deployment: ResolvedDeploymentConfig,
  options: { replicaId?: string } = {},
): Promise<ScaleOut> {
  const env = deployment.env ?? process.env;
  const redis = deployment.config.state?.redis;
  const otlp = deployment.config.telemetry?.otlp;
  let sharedState: SharedState | undefined;
  let telemetry: OtlpTelemetry | undefined;
  if (redis) {
    const { createSharedState } = await import('@toolsys/state-redis');
    const replicaId = redis.replicaId ?? options.replicaId;
    sharedState = createSharedState({
      url: withPassword(redis.url, redis.passwordEnv ? env[redis.passwordEnv] : undefined),
      ...(redis.keyPrefix !== undefined ? { keyPrefix: redis.keyPrefix } : {}),
      ...(redis.operationTimeoutMs !== undefined
        ? { operationTimeoutMs: redis.operationTimeoutMs }
        : {}),
      ...(replicaId !== undefined ? { replicaId } : {}),
      // The configured allow-list stays on this replica (the permission manager holds it); only
      // the users' answers are shared: "always" within replicas of the same policy, "for the
      // session" until the session ends or stays idle past its limit.
      grantScope: permissionPolicyScope(deployment.config),
      grantSessionTtlMs: sessionIdleMs(deployment.config),
      ...(redis.grantMaxStalenessMs !== undefined
        ? { grantMaxStalenessMs: redis.grantMaxStalenessMs }
        : {}),
      traceCapacity: HOST_TRACE_CAPACITY,
    });
    // So that the first calls are already shared; bounded, and calls run on local state meanwhile.
    await sharedState.connection.waitUntilShared(REDIS_STARTUP_WAIT_MS);
  }
  if (otlp) {
    const { OtlpTelemetry } = await import('@toolsys/state-redis/otlp');
    telemetry = new OtlpTelemetry({
      endpoint: otlp.endpoint,
      headers: {
        ...parseHeaders(otlp.headersEnv ? env[otlp.headersEnv] : undefined),
        ...otlp.headers,
      },
      ...(otlp.serviceName !== undefined ? { serviceName: otlp.serviceName } : {}),
      ...(otlp.metricIntervalMs !== undefined ? { metricIntervalMs: otlp.metricIntervalMs } : {}),
      // Metrics and spans say which replica served them.
      ...(sharedState ? { serviceInstanceId: sharedState.replicaId } : {}),
    });
  }
  return {
    ...(sharedState ? { sharedState } : {}),
    ...(telemetry ? { telemetry } : {}),
  };
}

function withPassword(url: string, password: string | undefined): string {
  if (!password) return url;
  try {
    const parsed = new URL(url);
    parsed.password = password;
    return parsed.toString();
  } catch {
    return url;
  }
}

/** `key=value,key2=value2` → headers (OTEL_EXPORTER_OTLP_HEADERS format). */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const index = pair.indexOf('=');
    if (index <= 0) continue;
    headers[pair.slice(0, index).trim()] = decodeURIComponent(pair.slice(index + 1).trim());
  }
  return headers;
}

/** The status of the configured Redis and OTLP pieces. */
export function scaleOutStatus(scaleOut: ScaleOut): ScaleOutStatus {
  return {
    redis: scaleOut.sharedState
      ? { configured: true, ...scaleOut.sharedState.status() }
      : { configured: false },
    otlp: scaleOut.telemetry
      ? { configured: true, ...scaleOut.telemetry.status() }
      : { configured: false },
  };
}
