/**
 * The kernel's public surface: the tool contract, the registry, the executor and its policies.
 * Provider adapters live under `@toolsys/core-tool-registry/adapters`, untrusted-text and secret
 * helpers under `/text`, test helpers under `/testing`.
 */
export { SYSTEM_CLOCK, sleep, type ToolClock } from './contract/clock.js';
export {
  type ForeignHandle,
  foreignReplicaError,
  foreignReplicaFailure,
  HANDLE_HEADER,
  HANDLE_HTTP_HEADER,
  HANDLE_MAX_LENGTH,
  handleArgument,
  isReplicaName,
  mintHandle,
  type ParsedHandle,
  parseHandle,
  REPLICA_NAME_PATTERN,
} from './contract/handle-id.js';
export {
  type HandleOwner,
  handleOwnerKey,
  handleOwnerOf,
  isHandleOwner,
  isKeyOfSession,
  isToolVisibleTo,
  principalKey,
} from './contract/handle-owner.js';
export {
  applyTaskPatch,
  isTaskRecord,
  isTerminalTaskStatus,
  parseTaskRecord,
  TASK_STATUSES,
  type TaskInputRequest,
  type TaskInputResponse,
  type TaskPage,
  type TaskPatch,
  type TaskRecord,
  type TaskSignal,
  type TaskStatus,
  type TaskStore,
} from './contract/task-record.js';
export {
  type AnyToolDefinition,
  type CallPrincipal,
  type ConfirmationDecision,
  type ConfirmationRequest,
  type ConfirmFunction,
  defineTool,
  type InputRequest,
  type InputResponse,
  type RegisteredTool,
  type ToolContext,
  type ToolDefinition,
  type ToolEvent,
  type ToolReturn,
} from './contract/tool.js';
export { describeType } from './contract/tool-arguments.js';
export {
  invalidArgument,
  isToolError,
  ToolError,
  ToolErrorCode,
  type ToolErrorOptions,
} from './contract/tool-error.js';
export type { ExecuteOptions, ToolExecutor } from './contract/tool-executor.js';
export {
  cancelledFailure,
  circuitOpenFailure,
  failureFromThrown,
  offToolFailure,
} from './contract/tool-failures.js';
export {
  cautiousHints,
  isRetrySafe,
  type KeyedInputRequest,
  maxRisk,
  resolveMetadata,
  riskFromHints,
  TOOL_CATEGORIES,
  TOOL_RISKS,
  TOOL_TASK_SUPPORT,
  type ToolAnnotations,
  type ToolCategory,
  type ToolGrantGroup,
  ToolHints,
  type ToolMetadata,
  type ToolMetadataInput,
  type ToolRisk,
  type ToolTaskSupport,
  taskSupportOf,
} from './contract/tool-metadata.js';
export {
  failureResult,
  isToolResult,
  renderResult,
  successResult,
  type ToolArtifact,
  type ToolFailure,
  type ToolFailureError,
  type ToolResult,
  type ToolSuccess,
} from './contract/tool-result.js';
export { describeIssues, type JsonSchema, ToolSchema } from './contract/tool-schema.js';
export type {
  OfferedCompleter,
  OfferedContent,
  OfferedPrompt,
  OfferedPromptArgument,
  OfferedPromptMessage,
  OfferedResource,
  OfferedResourceContents,
  OfferedResourceTemplate,
  OfferingChange,
  OfferingContext,
  ToolPackageOfferings,
} from './package/package-offerings.js';
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
  DEFAULT_BATCH_BUDGET_MS,
  MAX_BATCH_BUDGET_MS,
  MAX_BATCH_STEPS,
  NOT_EXECUTED_TEXT,
  ToolBatchRunner,
} from './pipeline/batch-runner.js';
export { SHARED_QUOTA_CALLERS } from './pipeline/caller-quota.js';
export { type Deadlined, DeadlineWatch } from './pipeline/deadline-watch.js';
export {
  hasEventSink,
  isAttemptSignal,
  lookupTool,
  mayAbortWithin,
  nestedCallOptions,
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
} from './pipeline/result-budget.js';
export type { CallDecision, SettledCall } from './pipeline/settled-call.js';
export { ToolCallIds } from './pipeline/tool-call-ids.js';
export {
  LATENCY_BUCKETS,
  renderLatencyReport,
  summariseLatency,
  type ToolLatencySummary,
  ToolTraceRecorder,
  type ToolTraceRecorderOptions,
  type ToolTraceSpan,
} from './pipeline/trace-recorder.js';
export {
  type CircuitBreakerLike,
  type CircuitBreakerState,
  type CircuitDecision,
  type CircuitState,
  isInfrastructureFailure,
  ToolCircuitBreaker,
  type ToolCircuitBreakerOptions,
} from './policies/circuit-breaker.js';
export {
  DEFAULT_ARGUMENT_DESCRIPTION_LIMITS,
  describeArguments,
} from './policies/describe-arguments.js';
export {
  ToolEnvironmentGate,
  type ToolEnvironmentRule,
  ToolEnvironmentState,
} from './policies/environment-gate.js';
export {
  grantKey,
  groupGrantSubject,
  principalDigest,
} from './policies/grant-keys.js';
export {
  type RateLimitDecision,
  type RateLimiterLike,
  type RateLimiterState,
  ToolRateLimiter,
  type ToolRateLimiterOptions,
} from './policies/rate-limiter.js';
export {
  callRisk,
  type GateContext,
  type GateDenial,
  type GateVerdict,
  RiskAwareToolGate,
  type ToolExecutionGate,
} from './policies/tool-execution-gate.js';
export {
  type GrantTarget,
  type PermissionDecisionStore,
  type RememberedGrant,
  type RiskPolicy,
  ToolPermissionManager,
  type ToolPermissionManagerOptions,
} from './policies/tool-permission-manager.js';
export { RunPolicies, type ToolRunPolicy } from './policies/tool-run-policy.js';
export { firstSentence, pruneToolPointers, renderCatalog } from './registry/catalog.js';
export type { OffTool, OffTools } from './registry/off-tools.js';
export {
  DuplicateToolError,
  type RegisterOptions,
  ToolRegistry,
} from './registry/tool-registry.js';
export { ToolSuggester } from './registry/tool-suggester.js';
export { ToolUsageTracker } from './registry/tool-usage-tracker.js';
