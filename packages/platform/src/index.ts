export {
  APPROVED_ENVIRONMENT_NAMES,
  type ApprovedEnvironmentOptions,
  approvedEnvironment,
  isCredentialName,
} from './approved-environment.js';
export { type WriteFileAtomicOptions, writeFileAtomic } from './atomic-write.js';
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
export type {
  CpuToolSet,
  CpuWorkerModule,
} from './cpu/cpu-task.js';
export { CpuToolPool, type CpuToolPoolOptions, offloadCpuTools } from './cpu/cpu-tool-pool.js';
export { withFileLock } from './file-lock.js';
export { isRipgrepAvailable, searchFiles } from './file-search.js';
export {
  type GuardedRequestOptions,
  type GuardedResponse,
  guardedRequest,
  type ReadBodyResult,
  readBody,
} from './guarded-request.js';
export { lazyModule } from './lazy-module.js';
export {
  compileLinearRegex,
  LINEAR_REGEX_LIMITS,
  type LinearRegexFlags,
} from './linear-regex.js';
export {
  type CapturedOutput,
  type ProcessOutcome,
  type RunProcessOptions,
  runProcess,
  scrubEnvironment,
} from './process-runner.js';
export {
  type CommandVerdict,
  classifyCommand,
  type ShellPolicyOptions,
} from './shell/shell-policy.js';
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
  copyEntry,
  openSubdirectory,
  openWorkspaceDirectory,
  openWorkspaceEntry,
  pathInDirectory,
  readWorkspaceFile,
  removeEntry,
  TargetExistsError,
  verifyWorkspaceDirectory,
  type WorkspaceDirectory,
  type WorkspaceEntry,
  type WorkspacePartFile,
  type WorkspacePartFileOptions,
  type WriteWorkspaceFileOptions,
  withParentDirectory,
  withWorkspaceEntry,
  withWorkspacePartFile,
  writeWorkspaceFileAtomic,
} from './workspace-fs.js';
export {
  type ResolveWorkspacePathOptions,
  resolveWorkspacePath,
  type WorkspacePath,
} from './workspace-paths.js';
