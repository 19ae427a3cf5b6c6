export {
  type AdapterCallOptions,
  type AdapterOptions,
  type AdapterToolset,
  createAdapterToolset,
} from './adapters/adapter-tools.js';
export {
  DEFAULT_INLINE_IMAGE_BYTES,
  type InlineImage,
  readInlineImages,
  renderForModel,
} from './adapters/artifact-output.js';
export {
  PROVIDER_NAME_MAX_LENGTH,
  ProviderNameCollisionError,
  ProviderNames,
  type ProviderNamesOptions,
} from './adapters/provider-names.js';
export {
  argumentLimitsOf,
  checkArgumentLimits,
  DEFAULT_ARGUMENT_LIMITS,
  type ToolArgumentLimits,
} from './contract/argument-limits.js';
export { SYSTEM_CLOCK, sleep, type TimerHandle, type ToolClock } from './contract/clock.js';
export {
  type AnyToolDefinition,
  type ConfirmationDecision,
  type ConfirmationRequest,
  type ConfirmFunction,
  defineTool,
  type RegisteredTool,
  type ToolContext,
  type ToolDefinition,
  type ToolEvent,
  type ToolReturn,
} from './contract/tool.js';
export { describeType, ToolArguments } from './contract/tool-arguments.js';
export {
  invalidArgument,
  isToolError,
  TOOL_ERROR_CODES,
  ToolError,
  ToolErrorCode,
  type ToolErrorOptions,
} from './contract/tool-error.js';
export type { ExecuteOptions, ToolExecutor } from './contract/tool-executor.js';
export {
  argumentLimitFailure,
  argumentsNotJsonFailure,
  argumentsNotObjectFailure,
  batchBudgetFailure,
  batchCancelledFailure,
  cancelledFailure,
  circuitOpenFailure,
  environmentBlockedFailure,
  failureFromThrown,
  invalidBatchFailure,
  invalidReturnFailure,
  outcomeUnknownFailure,
  permissionDeniedFailure,
  rateLimitedFailure,
  timeoutFailure,
  unknownToolFailure,
} from './contract/tool-failures.js';
export {
  cautiousHints,
  compareRisk,
  isRetrySafe,
  maxRisk,
  resolveMetadata,
  riskFromHints,
  TOOL_CATEGORIES,
  TOOL_RISKS,
  type ToolAnnotations,
  type ToolCategory,
  ToolHints,
  type ToolMetadata,
  type ToolMetadataInput,
  type ToolRisk,
} from './contract/tool-metadata.js';
export {
  defaultHint,
  failureResult,
  isRetryableByDefault,
  isToolResult,
  renderResult,
  successResult,
  type ToolArtifact,
  type ToolFailure,
  type ToolFailureError,
  type ToolResult,
  type ToolSuccess,
} from './contract/tool-result.js';
export {
  describeIssues,
  formatPath,
  type JsonSchema,
  type SchemaParseResult,
  ToolSchema,
  type ToolSchemaObjectOptions,
} from './contract/tool-schema.js';
export {
  type AnyToolPackageEntry,
  defineToolPackage,
  isToolPackageEntry,
  type ToolPackageContext,
  type ToolPackageContribution,
  type ToolPackageEntry,
  type ToolPackageEnvironment,
  type ToolPackageStatus,
} from './package/tool-package.js';
export {
  BATCH_FORBIDDEN_TOOLS,
  type BatchRunOptions,
  type BatchStep,
  type BatchStepOutcome,
  DEFAULT_BATCH_BUDGET_MS,
  MAX_BATCH_BUDGET_MS,
  MAX_BATCH_STEPS,
  MAX_REFERENCE_BYTES,
  NOT_EXECUTED_TEXT,
  renderBatchReport,
  resolveReferences,
  ToolBatchRunner,
  type ToolBatchRunnerOptions,
  truncateHead,
} from './pipeline/batch-runner.js';
export { callerQuotaKey, SHARED_QUOTA_CALLERS } from './pipeline/caller-quota.js';
export { type Deadlined, DeadlineWatch } from './pipeline/deadline-watch.js';
export {
  hasEventSink,
  isAttemptSignal,
  lookupTool,
  mayAbortWithin,
  nestedCallOptions,
  normaliseReturn,
  parseRawArguments,
} from './pipeline/execution-steps.js';
export {
  createToolExecutor,
  PipelineToolExecutor,
  type RunPolicyOptions,
  type ToolExecutorOptions,
} from './pipeline/pipeline-tool-executor.js';
export {
  type LimitResultOptions,
  limitResult,
  MAX_RESULT_CHARS,
  measureJson,
} from './pipeline/result-budget.js';
export { ToolCallIds } from './pipeline/tool-call-ids.js';
export {
  type ArgsDigest,
  digestArgs,
  LATENCY_BUCKETS,
  MAX_DIGEST_FIELDS,
  MAX_DIGEST_KEY_LENGTH,
  type OpenSpan,
  renderLatencyReport,
  type SpanInit,
  summariseLatency,
  type ToolLatencySummary,
  ToolTraceRecorder,
  type ToolTraceRecorderOptions,
  type ToolTraceSpan,
  type TraceHandle,
} from './pipeline/trace-recorder.js';
export { fullJitterBackoff } from './policies/backoff.js';
export {
  type CircuitBreakerLike,
  type CircuitBreakerState,
  type CircuitDecision,
  type CircuitState,
  isInfrastructureFailure,
  type OpenCircuitView,
  ToolCircuitBreaker,
  type ToolCircuitBreakerOptions,
} from './policies/circuit-breaker.js';
export {
  type ArgumentDescription,
  type ArgumentDescriptionLimits,
  DEFAULT_ARGUMENT_DESCRIPTION_LIMITS,
  describeArguments,
} from './policies/describe-arguments.js';
export {
  type EnvironmentObservation,
  type EnvironmentVerdict,
  ToolEnvironmentGate,
  type ToolEnvironmentGateOptions,
  type ToolEnvironmentRule,
  ToolEnvironmentState,
  type ToolEnvironmentStateOptions,
} from './policies/environment-gate.js';
export {
  type RateLimitDecision,
  type RateLimiterLike,
  type RateLimiterState,
  ToolRateLimiter,
  type ToolRateLimiterOptions,
} from './policies/rate-limiter.js';
export { RetryClassifier, type RetryDecision } from './policies/retry-classifier.js';
export {
  ALLOW_ALL_GATE,
  callRisk,
  type GateContext,
  type GateVerdict,
  RiskAwareToolGate,
  summariseAction,
  type ToolExecutionGate,
} from './policies/tool-execution-gate.js';
export {
  DEFAULT_SELF_GATED_TOOL_IDS,
  defaultUnconfirmableHint,
  InMemoryPermissionStore,
  type PermissionDecisionStore,
  type PermissionState,
  type PermissionVerdict,
  type RememberedGrant,
  type RiskPolicy,
  ToolPermissionManager,
  type ToolPermissionManagerOptions,
} from './policies/tool-permission-manager.js';
export { RunPolicies, type RunPolicyName, type ToolRunPolicy } from './policies/tool-run-policy.js';
export {
  type CatalogOptions,
  firstSentence,
  pruneToolPointers,
  renderCatalog,
  splitSentences,
} from './registry/catalog.js';
export {
  DuplicateToolError,
  type RegisterOptions,
  type RegisterOutcome,
  type RegisterPolicy,
  type RegistryChange,
  ToolRegistry,
} from './registry/tool-registry.js';
export { MAX_SUGGESTIONS, ToolSuggester } from './registry/tool-suggester.js';
export { type ToolUsage, ToolUsageTracker } from './registry/tool-usage-tracker.js';
export { displayUrl } from './text/display-url.js';
export {
  decidePageResume,
  type PageFromTopReason,
  type PageResume,
  type PageResumeOptions,
} from './text/page-resume.js';
export { RecentCaptures, type RecentCapturesOptions } from './text/recent-captures.js';
export {
  containsSecretShape,
  REDACTED,
  SECRET_VALUE_SHAPES,
  scrubSecrets,
  scrubSecretsDeep,
  scrubToolReturn,
  TRANSFORMED_SCAN_MAX_CHARS,
  withSecretScrubbing,
} from './text/secret-scrubber.js';
export {
  createSecretStreamScrubber,
  type SecretStreamScrubber,
  type SecretStreamScrubberOptions,
} from './text/secret-stream-scrubber.js';
export {
  type CleanedText,
  CleaningTally,
  cleanUntrustedLine,
  cleanUntrustedText,
  defuseMarkers,
  escapeInvisible,
  markUntrusted,
  type UntrustedMarkers,
  type UntrustedSource,
  untrustedMarkers,
} from './text/untrusted-text.js';
