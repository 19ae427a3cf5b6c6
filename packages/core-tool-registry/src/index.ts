export { type CatalogOptions, firstSentence, renderCatalog } from './catalog.js';
export {
  DefaultToolExecutor,
  type DefaultToolExecutorOptions,
} from './default-tool-executor.js';
export {
  cancelledFailure,
  createToolContext,
  failureFromThrown,
  invokeTool,
  lookupTool,
  normaliseReturn,
  parseRawArguments,
  type ToolContextInit,
} from './execution-steps.js';
export { SafeAgentTool, wrapSafely } from './safe-agent-tool.js';
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
  DEFAULT_SELF_GATED_TOOL_IDS,
  type PermissionState,
  type PermissionVerdict,
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
export { createFileMemoryTools, type FileMemoryToolsOptions } from './tools/file-memory.js';
export { createFileTools, type FileToolsOptions } from './tools/files.js';
export { type CoreToolsOptions, createCoreTools } from './tools/index.js';
export { createNetworkTools, type NetworkToolsOptions } from './tools/network.js';
export {
  createOrchestrationTools,
  type OrchestrationToolsOptions,
} from './tools/orchestration.js';
export { createShellTools, type ShellToolsOptions } from './tools/shell.js';
export { createSkillTools, type SkillToolsOptions } from './tools/skills.js';
export { createStructuredTools, type StructuredToolsOptions } from './tools/structured.js';
export { createUtilityTools } from './tools/utilities.js';
