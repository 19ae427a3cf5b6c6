export {
  type ApprovedEnvironmentOptions,
  approvedEnvironment,
} from './approved-environment.js';
export { artifactFileName } from './artifact-file-name.js';
export { type WriteFileAtomicOptions, writeFileAtomic } from './atomic-write.js';
export {
  buildSandboxArguments,
  type SandboxArgumentsOptions,
  sandboxEnvironment,
} from './command-sandbox.js';
export type {
  CpuToolSet,
  CpuWorkerModule,
} from './cpu/cpu-task.js';
export { CpuToolPool, type CpuToolPoolOptions, offloadCpuTools } from './cpu/cpu-tool-pool.js';
export { withFileLock } from './file-lock.js';
export { isRipgrepAvailable, searchFiles } from './file-search.js';
export { type FindExecutableOptions, findExecutable } from './find-executable.js';
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
  currentTaskMark,
  runWithTaskMark,
  signalMarkedProcesses,
  TASK_MARK_VARIABLE,
  withTaskMark,
} from './process-scope.js';
export { prepareGitWrapper } from './sandbox-git-wrapper.js';
export {
  SANDBOX_LAUNCHER_ARGUMENTS,
  SANDBOX_LIMITS,
  type SandboxLimits,
  sandboxProcessLimit,
} from './sandbox-limits.js';
export {
  type CommandSandboxStatus,
  type ProbeCommandSandboxOptions,
  probeCommandSandbox,
} from './sandbox-probe.js';
export {
  type CommandVerdict,
  classifyCommand,
  commandDeniedFailure,
  type ShellPolicyOptions,
} from './shell/classify-command.js';
export {
  canonicalHost,
  type HostResolver,
  METADATA_ADDRESSES,
  type ResolvedAddress,
  SsrfGuard,
  type SsrfGuardOptions,
} from './ssrf-guard.js';
export {
  countTokens,
  type TokenPrefix,
  takeTokens,
} from './token-counter.js';
export {
  openSubdirectory,
  openWorkspaceDirectory,
  openWorkspaceEntry,
  pathInDirectory,
  verifyWorkspaceDirectory,
  type WorkspaceDirectory,
  type WorkspaceEntry,
  withParentDirectory,
  withWorkspaceEntry,
} from './workspace-fs.js';
export {
  type ResolveWorkspacePathOptions,
  resolveWorkspacePath,
  type WorkspacePath,
} from './workspace-paths.js';
export { copyEntry, removeEntry } from './workspace-tree.js';
export {
  TargetExistsError,
  type WorkspacePartFile,
  type WorkspacePartFileOptions,
  type WriteWorkspaceFileOptions,
  withWorkspacePartFile,
  writeWorkspaceFileAtomic,
} from './workspace-write.js';
