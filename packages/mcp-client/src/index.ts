export { boundedFetch, type FetchLike, MAX_REMOTE_MESSAGE_BYTES } from './bounded-fetch.js';
export { BoundedLog, type BoundedLogOptions } from './bounded-log.js';
export { markRemoteText, type RemoteToolRef, toToolResult } from './call-result.js';
export { configuredServers } from './configured-servers.js';
export {
  type DirectCallFailure,
  type DirectCallOptions,
  DirectToolCalls,
} from './direct-tool-calls.js';
export { type McpFailureContext, toMcpToolError } from './mcp-call-error.js';
export {
  type McpCallOptions,
  McpClient,
  type McpClientOptions,
  type McpRequestOptions,
  type McpTransportKind,
  TOOL_LISTING_LIMITS,
  type ToolListing,
} from './mcp-client.js';
export {
  type McpConfigFormat,
  McpConfigImport,
  type McpConfigImportOptions,
  type McpConfigImportResult,
  type McpConfigIssue,
} from './mcp-config-import.js';
export {
  type McpAddOptions,
  McpManager,
  type McpManagerOptions,
  type McpToolPinCheck,
} from './mcp-manager.js';
export { MAX_CALL_TIMEOUT_MS, MCP_CALL_POLICY } from './mcp-run-policies.js';
export {
  describeForApproval,
  describeServerTarget,
  isPinned,
  isSafeServerName,
  type McpHttpServerConfig,
  type McpProtocolVersion,
  type McpServerConfig,
  type McpServerConfigBase,
  type McpStdioServerConfig,
  mcpProtocolVersionSchema,
} from './mcp-server-config.js';
export type {
  McpConnectionStatus,
  McpServerState,
  RejectedTool,
} from './mcp-server-state.js';
export {
  describeRemote,
  describeRemoteTool,
  McpToolRegistrar,
  type McpToolRegistrarOptions,
  type RegistrarSyncOutcome,
  type SkippedRemoteTool,
  toRegistryId,
} from './mcp-tool-registrar.js';
export { LoopbackRedirect, type LoopbackRedirectOptions } from './oauth/loopback-redirect.js';
export { loginCommand, signInRequired } from './oauth/oauth-errors.js';
export {
  type AuthorizationStep,
  McpOAuthProvider,
  type McpOAuthProviderOptions,
  type McpOAuthSettings,
} from './oauth/oauth-provider.js';
export {
  FileOAuthStore,
  MemoryOAuthStore,
  type OAuthCredentialStore,
  type OAuthCredentials,
} from './oauth/oauth-store.js';
export {
  markSignInNeeded,
  oauthDirectory,
  oauthProviderFor,
  oauthStoreOf,
  type SignInOptions,
  type SignInState,
  signInState,
  signInToServer,
} from './oauth/server-sign-in.js';
export { SignInWatch } from './oauth/sign-in-watch.js';
export { approveCommand, diffCommand, quarantinedResult } from './pins/quarantine-errors.js';
export { quarantineDiff, unifiedDiff } from './pins/tool-diff.js';
export {
  type PinEntry,
  type PinnedTool,
  type ServerPins,
  ToolPinFile,
} from './pins/tool-pin-file.js';
export {
  type PinnedListing,
  pinnedShape,
  type QuarantinedTool,
  type QuarantineReason,
  ToolPins,
  toolPinHash,
} from './pins/tool-pins.js';
export { PrincipalManagers } from './principal-managers.js';
export {
  ProgressThrottle,
  type ProgressThrottleOptions,
  type ProgressUpdate,
} from './progress-emitter.js';
export {
  INPUT_REQUIRED_MAX_ROUNDS,
  type McpEra,
  MODERN_PROTOCOL_VERSION,
  STDIO_PROBE_TIMEOUT_MS,
} from './protocol-era.js';
export {
  failureReason,
  pinsDirectory,
  RemoteServerAccess,
  type RemoteServerAccessOptions,
} from './remote-server-access.js';
export {
  type RemoteServerStatus,
  remoteServerStatuses,
  statusNotes,
} from './remote-server-status.js';
export {
  describeServerApproval,
  type ServerApprovalOptions,
} from './server-approval-text.js';
export { McpServerApprovals } from './server-approvals.js';
export { stripTerminalControls } from './terminal-text.js';
export { type McpClientConfig, mcpClientConfigSchema, toolPackage } from './tool-package.js';
export { createMcpTools, type McpAdHocPolicy, type McpToolsOptions } from './tools/index.js';
