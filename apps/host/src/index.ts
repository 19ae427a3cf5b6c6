export { terminalConfirm } from './commands/shared.js';
export {
  CONFIG_FILE_NAME,
  ConfigError,
  type DeploymentConfig,
  deploymentConfigSchema,
  loadDeploymentConfig,
  parseDeploymentConfig,
  type ResolvedDeploymentConfig,
  resolveDeploymentConfig,
} from './config.js';
export {
  confirmationLines,
  ESCAPE_NOTE,
  escapeConfirmationRequest,
  escapingConfirm,
} from './confirmation-text.js';
export {
  CSRF_HEADER,
  createDashboardAccess,
  type DashboardAccess,
  type DashboardAccessOptions,
  type DashboardVisitor,
} from './dashboard/dashboard-access.js';
export { type DashboardSession, SESSION_COOKIE } from './dashboard/dashboard-sessions.js';
export {
  type DashboardSignIns,
  dashboardSignInsFor,
  LocalRevocations,
  RedisRevocations,
  SealedDashboardSignIns,
  type SealedDashboardSignInsOptions,
  type SignInRevocations,
} from './dashboard/sealed-sign-ins.js';
export {
  type ComposeOptions,
  composeDeployment,
  type Deployment,
  isDiscoveryTool,
  type PackageReport,
} from './deployment.js';
export {
  DEPLOYMENT_KEY_ENV,
  DeploymentKey,
  DeploymentKeyError,
  loadDeploymentKey,
  type Unsealed,
  type UnsealFailure,
} from './deployment-key.js';
export {
  createExecutionStack,
  type ExecutionStack,
  type ExecutionStackOptions,
} from './execution-stack.js';
export { HostOfferings, type HostOfferingsOptions } from './offerings/host-offerings.js';
export {
  BUILTIN_PACKAGES,
  type LoadedPlugin,
  loadPlugins,
  packageSwitchesSchema,
} from './packages/index.js';
export { defaultDataDirectory, invocationDirectory } from './paths.js';
export { loadScaleOut, type ScaleOut, type ScaleOutStatus, scaleOutStatus } from './scale-out.js';
export { CallLog, type CallLogOptions, type ServedCall } from './server/call-log.js';
export { type CallScope, runInCallScope, scopedConfirm } from './server/call-scope.js';
export { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, MCP_PATH } from './server/http-defaults.js';
export {
  type HttpServeOptions,
  type HttpServer,
  serveHttp,
  UnsafeBindError,
} from './server/http-server.js';
export {
  MAX_INPUT_ROUNDS,
  REQUEST_STATE_PURPOSE,
  REQUEST_STATE_TTL_MS,
  type RoundState,
} from './server/input-rounds.js';
export {
  createMcpServer,
  HOST_VERSION,
  LIST_TTL_MS,
  MCP_SERVER_NAME,
  type McpServerOptions,
  mcpSessionId,
  type ToolsysMcpServer,
} from './server/mcp-server.js';
export {
  ACCEPTED_TOKEN_ALGORITHMS,
  createOAuthResource,
  createScopeRules,
  DEFAULT_RISK_SCOPES,
  OAuthConfigError,
  type OAuthIdentity,
  type OAuthResource,
  type OAuthResourceOptions,
  type ScopeRules,
  TOKEN_CLOCK_SKEW_SECONDS,
  type TokenCheck,
} from './server/oauth-resource.js';
export type {
  CompletionAnswer,
  CompletionRef,
  OfferingCaller,
  OfferingContent,
  PromptInfo,
  PromptResult,
  ResourceContents,
  ResourceInfo,
  ResourceTemplateInfo,
  ServerOfferings,
} from './server/offerings.js';
export { NO_OFFERINGS, OfferingError } from './server/offerings.js';
export { LOCAL_PRINCIPAL, type Principal, principalKey } from './server/principal.js';
export { MODERN_PROTOCOL_VERSION, type ProtocolEra } from './server/protocol-era.js';
export type { LinkedArtifact, RecentArtifacts } from './server/recent-artifacts.js';
export {
  createStaticTokens,
  DEFAULT_TOKEN_NAME,
  type NamedToken,
  TokenConfigError,
} from './server/static-tokens.js';
export { type StdioServeOptions, type StdioServer, serveStdio } from './server/stdio-server.js';
export { type HostCallOptions, ToolHost } from './server/tool-host.js';
export { createUsedStateIds, type UsedStateIds } from './server/used-state-ids.js';
export {
  DEFAULT_SESSION_IDLE_MS,
  newSessionId,
  permissionPolicyScope,
  sessionIdleMs,
} from './session-policy.js';
export { isToolSelected, matchesToolPattern, type ToolOrigin } from './tool-selection.js';
