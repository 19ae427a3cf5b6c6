import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CircuitBreakerLike,
  type CircuitBreakerState,
  type ConfirmationRequest,
  type ConfirmFunction,
  createToolExecutor,
  type RateLimiterLike,
  type RateLimiterState,
  RiskAwareToolGate,
  RunPolicies,
  ToolCircuitBreaker,
  ToolEnvironmentGate,
  ToolEnvironmentState,
  type ToolExecutor,
  ToolPermissionManager,
  ToolRateLimiter,
  type ToolRegistry,
  type ToolRunPolicy,
  ToolTraceRecorder,
  type ToolTraceSpan,
  ToolUsageTracker,
} from '@toolsys/core-tool-registry';
import type { SharedState, SharedStateStatus } from '@toolsys/state-redis';
import type { OtlpTelemetry, OtlpTelemetryStatus, TraceCarrier } from '@toolsys/state-redis/otlp';
import type { ResolvedDeploymentConfig } from './config.js';
import { permissionPolicyScope, sessionIdleMs } from './session-policy.js';

/** Spans the host keeps in memory. */
export const HOST_TRACE_CAPACITY = 300;
/** The trace file in the data directory. */
export const TRACE_FILE_NAME = 'traces.jsonl';
/** The trace file is rotated (to `traces.1.jsonl`) when it grows past this many bytes. */
export const TRACE_FILE_MAX_BYTES = 1_000_000;

/** Breaker and limiter states, as plain JSON (for the dashboard). */
export interface ExecutionSnapshot {
  /** Every circuit that has seen a failure. */
  readonly breakers: CircuitBreakerState[];
  /** Every token bucket in use. */
  readonly limiters: RateLimiterState[];
}

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

/** The execution pieces of a deployment. */
export interface ExecutionStack {
  readonly executor: ToolExecutor;
  readonly permissions: ToolPermissionManager;
  readonly usage: ToolUsageTracker;
  /** One span per attempt (300 kept; also appended to the trace file). */
  readonly traces: ToolTraceRecorder;
  /** Per-tool token buckets (shared through Redis when `state.redis` is configured). */
  readonly rateLimiter: RateLimiterLike;
  /** Per-tool circuit breakers (shared through Redis when `state.redis` is configured). */
  readonly circuitBreaker: CircuitBreakerLike;
  /** Redis and OTLP pieces, when configured. */
  readonly scaleOut: ScaleOut;
  /** Environment telemetry the environment gate reads (fed by platform packages). */
  readonly environment: ToolEnvironmentState;
  /** Where spans are appended (`<dataDir>/traces.jsonl`). */
  readonly traceFile: string;
  /** Breaker and limiter states per tool, as plain JSON. */
  snapshot(): ExecutionSnapshot;
  /** Whether Redis and OTLP are configured, and how they fare. */
  scaleOutStatus(): ScaleOutStatus;
  /**
   * The recent spans of every replica (from Redis) when shared state is configured and answers;
   * else undefined (show this replica's own spans).
   */
  sharedSpans(limit?: number): Promise<ToolTraceSpan[] | undefined>;
  /**
   * Makes the exported spans of call `callId` children of the client's W3C trace context (an MCP
   * request's `_meta`); returns the function that unbinds it. A no-op without telemetry.
   */
  bindTraceContext(callId: string, carrier: TraceCarrier | undefined): () => void;
  /** Releases what the stack holds (trace files, timers). */
  close(): Promise<void>;
}

/** Options for {@link createExecutionStack}. */
export interface ExecutionStackOptions {
  registry: ToolRegistry;
  deployment: ResolvedDeploymentConfig;
  /** Asks the user; calls that need asking are refused without it. */
  confirm?: ConfirmFunction;
  /** The next step when a call needs confirming and no one can confirm (e.g. the CLI's `--yes`). */
  unconfirmableHint?: (request: ConfirmationRequest) => string;
  /** Shared state and telemetry from {@link loadScaleOut}; the stack closes them. */
  scaleOut?: ScaleOut;
}

/**
 * Builds the v3 executor with the deployment's permission policy: environment gate, risk gate,
 * rate limiter, circuit breaker, run policies (timeouts and retries) and tracing, with spans
 * appended to `<dataDir>/traces.jsonl` so `toolsys trace` sees them across invocations.
 */
export function createExecutionStack(options: ExecutionStackOptions): ExecutionStack {
  const { registry, deployment, confirm } = options;
  const permissionConfig = deployment.config.permissions ?? {};
  const scaleOut = options.scaleOut ?? {};
  const shared = scaleOut.sharedState;
  const permissions = new ToolPermissionManager({
    ...(shared ? { store: shared.permissionStore } : {}),
    ...(confirm ? { confirm } : {}),
    policy: {
      ...(permissionConfig.LOW ? { LOW: permissionConfig.LOW } : {}),
      ...(permissionConfig.MEDIUM ? { MEDIUM: permissionConfig.MEDIUM } : {}),
      ...(permissionConfig.HIGH ? { HIGH: permissionConfig.HIGH } : {}),
    },
    alwaysAllowed: permissionConfig.alwaysAllow ?? [],
    ...(options.unconfirmableHint ? { unconfirmableHint: options.unconfirmableHint } : {}),
  });
  const usage = new ToolUsageTracker();
  const traces = new ToolTraceRecorder({ capacity: HOST_TRACE_CAPACITY });
  const traceFile = join(deployment.dataDir, TRACE_FILE_NAME);
  for (const span of readTraceFile(traceFile, HOST_TRACE_CAPACITY)) traces.add(span);
  const writer = new TraceFileWriter(traceFile);
  const unsubscribe = traces.onSpan((span) => writer.append(span));
  const rateLimiter: RateLimiterLike = shared?.rateLimiter ?? new ToolRateLimiter();
  const circuitBreaker: CircuitBreakerLike = shared?.circuitBreaker ?? new ToolCircuitBreaker();
  shared?.traceRing.attach(traces);
  scaleOut.telemetry?.attach(traces);
  const environment = new ToolEnvironmentState();
  const overrides = runPolicyOverrides(deployment);
  const executor = createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(permissions),
    usageTracker: usage,
    environmentGate: new ToolEnvironmentGate({ state: environment }),
    rateLimiter,
    circuitBreaker,
    traces,
    runPolicies: { overrides },
    ...(confirm ? { confirm } : {}),
  });
  return {
    executor,
    permissions,
    usage,
    traces,
    rateLimiter,
    circuitBreaker,
    environment,
    traceFile,
    scaleOut,
    snapshot: () => ({ breakers: circuitBreaker.snapshot(), limiters: rateLimiter.snapshot() }),
    scaleOutStatus: () => scaleOutStatus(scaleOut),
    sharedSpans: async (limit) => (shared ? await shared.traceRing.recent(limit) : undefined),
    bindTraceContext: (callId, carrier) =>
      scaleOut.telemetry ? scaleOut.telemetry.bindCall(callId, carrier) : NO_UNBIND,
    close: async () => {
      unsubscribe();
      writer.flush();
      await scaleOut.telemetry?.close();
      await shared?.close();
    },
  };
}

const NO_UNBIND = (): void => {};

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

/** Turns `tools.runPolicies` of the config into executor overrides (a preset replaces the base). */
function runPolicyOverrides(
  deployment: ResolvedDeploymentConfig,
): Record<string, Partial<ToolRunPolicy>> {
  const configured = deployment.config.tools?.runPolicies ?? {};
  const overrides: Record<string, Partial<ToolRunPolicy>> = {};
  for (const [toolId, override] of Object.entries(configured)) {
    const policy: { -readonly [K in keyof ToolRunPolicy]?: ToolRunPolicy[K] } = {
      // A preset replaces the tool's policy entirely, including the fields it leaves out.
      ...(override.preset
        ? { timeoutMs: undefined, ratePerMinute: undefined, ...RunPolicies[override.preset] }
        : {}),
    };
    if (override.timeoutMs !== undefined) policy.timeoutMs = override.timeoutMs;
    if (override.maxRetries !== undefined) policy.maxRetries = override.maxRetries;
    if (override.ratePerMinute !== undefined) {
      policy.ratePerMinute = override.ratePerMinute ?? undefined;
    }
    overrides[toolId] = { ...policy, name: override.preset ?? `config:${toolId}` };
  }
  return overrides;
}

/**
 * Appends spans to a JSONL file, batched per event-loop turn; rotates the file to `.1.jsonl` when it
 * passes {@link TRACE_FILE_MAX_BYTES}. Write failures disable the file, never the call.
 */
class TraceFileWriter {
  readonly #file: string;
  #pending: string[] = [];
  #scheduled = false;
  #size: number | undefined;
  #broken = false;

  constructor(file: string) {
    this.#file = file;
  }

  append(span: ToolTraceSpan): void {
    if (this.#broken) return;
    this.#pending.push(JSON.stringify(span));
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0 || this.#broken) return;
    const text = `${this.#pending.join('\n')}\n`;
    this.#pending = [];
    try {
      if (this.#size === undefined) {
        mkdirSync(join(this.#file, '..'), { recursive: true });
        this.#size = fileSize(this.#file);
      }
      if (this.#size + text.length > TRACE_FILE_MAX_BYTES && this.#size > 0) {
        renameSync(this.#file, rotatedName(this.#file));
        this.#size = 0;
      }
      appendFileSync(this.#file, text, 'utf8');
      this.#size += Buffer.byteLength(text);
    } catch {
      // Tracing to disk is best effort: a read-only data directory must not break tool calls.
      this.#broken = true;
    }
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function rotatedName(file: string): string {
  return file.replace(/\.jsonl$/, '.1.jsonl');
}

/**
 * Reads the newest `limit` spans from a trace file and its rotated predecessor, oldest first.
 * Missing files are empty; malformed lines are skipped.
 */
export function readTraceFile(file: string, limit = Number.POSITIVE_INFINITY): ToolTraceSpan[] {
  const spans: ToolTraceSpan[] = [];
  for (const path of [rotatedName(file), file]) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const span = JSON.parse(line) as ToolTraceSpan;
        if (typeof span.toolId === 'string' && typeof span.durationMs === 'number')
          spans.push(span);
      } catch {
        // A line cut by a crash is skipped.
      }
    }
  }
  return spans.length > limit ? spans.slice(spans.length - limit) : spans;
}
