// The executor stack of a deployment: permissions, gates, rate limiter, circuit breaker, run
// policies and tracing around one registry.
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
import type { TraceCarrier } from '@toolsys/state-redis/otlp';
import { type ArgumentsKey, argumentsDigest } from './audit/audit-entry.js';
import { AuditLog } from './audit/audit-log.js';
import { settledCallEntry } from './audit/settled-call-entry.js';
import type { ResolvedDeploymentConfig } from './config.js';
import { configKeysHint } from './confirmation-text.js';
import { DeploymentKey } from './deployment-key.js';
import { EveryoneGrants } from './everyone-grants.js';
import { type ScaleOut, type ScaleOutStatus, scaleOutStatus } from './scale-out.js';
import { currentCallScope } from './server/call-scope.js';
import {
  HOST_TRACE_CAPACITY,
  readTraceFile,
  TRACE_FILE_NAME,
  TraceFileWriter,
} from './trace-file.js';

/** Breaker and limiter states, as plain JSON (for the dashboard). */
export interface ExecutionSnapshot {
  /** Every circuit that has seen a failure. */
  readonly breakers: CircuitBreakerState[];
  /** Every token bucket in use. */
  readonly limiters: RateLimiterState[];
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
  /** The audit log (`<dataDir>/audit`), unless `audit.enabled` is false. */
  readonly audit: AuditLog | undefined;
  /** The tools an operator allowed always for everyone at run time (`toolsys grant --everyone`). */
  readonly everyone: EveryoneGrants;
  /** The digest an audit line records of a call's arguments, keyed by the deployment key. */
  readonly digestArguments: (value: unknown) => string;
  /** This replica's name in audit lines: the shared state's replica id, when configured. */
  readonly replicaId: string | undefined;
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
  /**
   * The key audit digests of arguments are keyed with: the deployment key. Default: a key made
   * for this process (digests then match only within it).
   */
  argumentsKey?: ArgumentsKey;
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
  const everyone = new EveryoneGrants({
    dataDir: deployment.dataDir,
    ...(shared ? { connection: shared.connection } : {}),
  });
  const permissions = new ToolPermissionManager({
    ...(shared ? { store: shared.permissionStore } : {}),
    allowedForEveryone: everyone,
    ...(confirm ? { confirm } : {}),
    policy: {
      ...(permissionConfig.LOW ? { LOW: permissionConfig.LOW } : {}),
      ...(permissionConfig.MEDIUM ? { MEDIUM: permissionConfig.MEDIUM } : {}),
      ...(permissionConfig.HIGH ? { HIGH: permissionConfig.HIGH } : {}),
    },
    alwaysAllowed: permissionConfig.alwaysAllow ?? [],
    unconfirmableHint: options.unconfirmableHint ?? configKeysHint,
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
  const audit = createAuditLog(deployment);
  const argumentsKey = options.argumentsKey ?? DeploymentKey.generate();
  const digestArguments = (value: unknown) => argumentsDigest(value, argumentsKey);
  const replicaId = shared?.replicaId;
  const perPrincipal = deployment.config.limits?.perPrincipal;
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
    ...(perPrincipal ? { principalQuota: { ratePerMinute: perPrincipal.callsPerMinute } } : {}),
    ...(audit
      ? {
          onSettled: (call) =>
            audit.append(
              settledCallEntry(call, currentCallScope(), {
                replica: replicaId,
                now: Date.now(),
                digest: digestArguments,
              }),
            ),
        }
      : {}),
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
    audit,
    everyone,
    digestArguments,
    replicaId,
    scaleOut,
    snapshot: () => ({ breakers: circuitBreaker.snapshot(), limiters: rateLimiter.snapshot() }),
    scaleOutStatus: () => scaleOutStatus(scaleOut),
    sharedSpans: async (limit) => (shared ? await shared.traceRing.recent(limit) : undefined),
    bindTraceContext: (callId, carrier) =>
      scaleOut.telemetry ? scaleOut.telemetry.bindCall(callId, carrier) : NO_UNBIND,
    close: async () => {
      unsubscribe();
      writer.flush();
      await audit?.close();
      await scaleOut.telemetry?.close();
      await shared?.close();
    },
  };
}

const NO_UNBIND = (): void => {};

/** The deployment's audit log, unless switched off. */
function createAuditLog(deployment: ResolvedDeploymentConfig): AuditLog | undefined {
  const options = deployment.config.audit ?? {};
  if (options.enabled === false) return undefined;
  return new AuditLog({
    dataDir: deployment.dataDir,
    ...(options.retainDays !== undefined ? { retainDays: options.retainDays } : {}),
    ...(options.maxBytesPerDay !== undefined ? { maxBytesPerDay: options.maxBytesPerDay } : {}),
  });
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
