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
} from './argument-limits.js';
export { type WriteFileAtomicOptions, writeFileAtomic } from './atomic-write.js';
export { fullJitterBackoff } from './backoff.js';
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
} from './batch-runner.js';
export {
  type CatalogOptions,
  firstSentence,
  pruneToolPointers,
  renderCatalog,
  splitSentences,
} from './catalog.js';
export {
  type CircuitBreakerLike,
  type CircuitBreakerState,
  type CircuitDecision,
  type CircuitState,
  circuitOpenFailure,
  isInfrastructureFailure,
  type OpenCircuitView,
  ToolCircuitBreaker,
  type ToolCircuitBreakerOptions,
} from './circuit-breaker.js';
export { SYSTEM_CLOCK, sleep, type TimerHandle, type ToolClock } from './clock.js';
export {
  buildSandboxArguments,
  type CommandSandboxStatus,
  type ProbeCommandSandboxOptions,
  prepareGitWrapper,
  probeCommandSandbox,
  SANDBOX_ENVIRONMENT_NAMES,
  SANDBOX_LAUNCHER_ARGUMENTS,
  SANDBOX_LIMITS,
  type SandboxArgumentsOptions,
  type SandboxLimits,
  sandboxEnvironment,
  sandboxProcessLimit,
} from './command-sandbox.js';
export { type CoreConfig, coreConfigSchema, toolPackage } from './core-package.js';
export { CPU_TOOL_IDS } from './cpu/cpu-tool-definitions.js';
export { CpuToolPool, type CpuToolPoolOptions, offloadCpuTools } from './cpu/cpu-tool-pool.js';
export { type Deadlined, DeadlineWatch } from './deadline-watch.js';
export {
  DefaultToolExecutor,
  type DefaultToolExecutorOptions,
} from './default-tool-executor.js';
export {
  EnhancedToolExecutor,
  type EnhancedToolExecutorOptions,
  type RunPolicyOptions,
  rateLimitedFailure,
  timeoutFailure,
} from './enhanced-tool-executor.js';
export {
  type EnvironmentObservation,
  type EnvironmentVerdict,
  ToolEnvironmentGate,
  type ToolEnvironmentGateOptions,
  type ToolEnvironmentRule,
  ToolEnvironmentState,
  type ToolEnvironmentStateOptions,
} from './environment-gate.js';
export {
  cancelledFailure,
  createToolContext,
  failureFromThrown,
  hasEventSink,
  invokeTool,
  isAttemptSignal,
  lookupTool,
  mayAbortWithin,
  normaliseReturn,
  parseRawArguments,
  type ToolContextInit,
} from './execution-steps.js';
export {
  type GuardedRequestOptions,
  type GuardedResponse,
  guardedRequest,
  type ReadBodyResult,
  readBody,
} from './guarded-request.js';
export {
  decidePageResume,
  type PageFromTopReason,
  type PageResume,
  type PageResumeOptions,
} from './page-resume.js';
export {
  type CapturedOutput,
  type ProcessOutcome,
  type RunProcessOptions,
  runProcess,
  scrubEnvironment,
} from './process-runner.js';
export {
  type RateLimitDecision,
  type RateLimiterLike,
  type RateLimiterState,
  ToolRateLimiter,
  type ToolRateLimiterOptions,
} from './rate-limiter.js';
export { RecentCaptures, type RecentCapturesOptions } from './recent-captures.js';
export { RetryClassifier, type RetryDecision } from './retry-classifier.js';
export { SafeAgentTool, wrapSafely } from './safe-agent-tool.js';
export {
  createSearxngBackend,
  type SearchBackend,
  type SearchHit,
  type SearchQueryOptions,
  type SearxngBackendOptions,
} from './search-backend.js';
export {
  containsSecretShape,
  REDACTED,
  SECRET_VALUE_SHAPES,
  scrubSecrets,
  scrubSecretsDeep,
  scrubToolReturn,
} from './secret-scrubber.js';
export {
  type ParseShortcutOptions,
  parseShortcutDefinition,
  placeholdersOf,
  renderShortcutSteps,
  renderTemplate,
  type ShortcutDefinition,
  type ShortcutParam,
  type ShortcutParamType,
  type ShortcutStepTemplate,
} from './shortcuts/shortcut-definition.js';
export { type ShortcutLoadProblem, ShortcutStore } from './shortcuts/shortcut-store.js';
export {
  ShortcutSuggester,
  type ShortcutSuggesterOptions,
  type ShortcutSuggestion,
} from './shortcuts/shortcut-suggester.js';
export { type CompileShortcutOptions, compileShortcut } from './shortcuts/shortcut-tool.js';
export {
  parseSkillManifest,
  renderCommand,
  renderSkillManifest,
  type SkillManifest,
  type SkillToolSpec,
  shellQuote,
} from './skill-manifest.js';
export {
  SkillToolAdapter,
  type SkillToolAdapterOptions,
  skillOwner,
} from './skill-tool-adapter.js';
export {
  canonicalHost,
  embeddedIPv4,
  type HostResolver,
  METADATA_ADDRESSES,
  type ResolvedAddress,
  SsrfGuard,
  type SsrfGuardOptions,
} from './ssrf-guard.js';
export {
  countTokens,
  MAX_PIECE_CHARACTERS,
  type TokenPrefix,
  takeTokens,
} from './token-counter.js';
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
} from './tool.js';
export { describeType, ToolArguments } from './tool-arguments.js';
export { ToolCallIds } from './tool-call-ids.js';
export {
  isToolError,
  TOOL_ERROR_CODES,
  ToolError,
  ToolErrorCode,
  type ToolErrorOptions,
} from './tool-error.js';
export {
  ALLOW_ALL_GATE,
  type GateContext,
  type GateVerdict,
  RiskAwareToolGate,
  summariseAction,
  type ToolExecutionGate,
} from './tool-execution-gate.js';
export type { ExecuteOptions, ToolExecutor } from './tool-executor.js';
export {
  compareRisk,
  inferAnnotations,
  inferCategory,
  inferRisk,
  isRetrySafe,
  maxRisk,
  resolveMetadata,
  TOOL_CATEGORIES,
  TOOL_RISKS,
  type ToolAnnotations,
  type ToolCategory,
  type ToolMetadata,
  type ToolMetadataInput,
  type ToolRisk,
} from './tool-metadata.js';
export {
  type AnyToolPackageEntry,
  defineToolPackage,
  isToolPackageEntry,
  type ToolPackageContext,
  type ToolPackageContribution,
  type ToolPackageEntry,
  type ToolPackageEnvironment,
  type ToolPackageStatus,
} from './tool-package.js';
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
} from './tool-permission-manager.js';
export {
  DuplicateToolError,
  type RegisterOptions,
  type RegisterOutcome,
  type RegisterPolicy,
  type RegistryChange,
  ToolRegistry,
} from './tool-registry.js';
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
} from './tool-result.js';
export { RunPolicies, type RunPolicyName, type ToolRunPolicy } from './tool-run-policy.js';
export {
  describeIssues,
  formatPath,
  type JsonSchema,
  type SchemaParseResult,
  ToolSchema,
  type ToolSchemaObjectOptions,
} from './tool-schema.js';
export { type ServiceKey, serviceKey, ToolServices } from './tool-services.js';
export { MAX_SUGGESTIONS, ToolSuggester } from './tool-suggester.js';
export { type ToolUsage, ToolUsageTracker } from './tool-usage-tracker.js';
export {
  createDiscoveryTools,
  DISCOVERY_TOOL_IDS,
  type DiscoveryToolsOptions,
} from './tools/discovery.js';
export { createFileMemoryTools, type FileMemoryToolsOptions } from './tools/file-memory.js';
export { createFileTools, type FileToolsOptions } from './tools/files.js';
export { type CoreToolsOptions, createCoreTools } from './tools/index.js';
export { createNetworkTools, type NetworkToolsOptions } from './tools/network.js';
export {
  createOrchestrationTools,
  type OrchestrationToolsOptions,
} from './tools/orchestration.js';
export { createShellTools, type ShellToolsOptions } from './tools/shell.js';
export {
  type CommandVerdict,
  classifyCommand,
  type ShellPolicyOptions,
} from './tools/shell-policy.js';
export { createSkillTools, type SkillToolsOptions } from './tools/skills.js';
export {
  compileLinearRegex,
  LINEAR_REGEX_LIMITS,
  type LinearRegexFlags,
} from './tools/structured/linear-regex.js';
export { createStructuredTools, type StructuredToolsOptions } from './tools/structured.js';
export { createUtilityTools } from './tools/utilities.js';
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
} from './trace-recorder.js';
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
} from './untrusted-text.js';
export {
  openWorkspaceDirectory,
  pathInDirectory,
  verifyWorkspaceDirectory,
  type WorkspaceDirectory,
} from './workspace-fs.js';
export {
  type ResolveWorkspacePathOptions,
  resolveWorkspacePath,
  type WorkspacePath,
} from './workspace-paths.js';
