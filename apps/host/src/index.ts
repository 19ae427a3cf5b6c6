export {
  CONFIG_FILE_NAME,
  ConfigError,
  type DeploymentConfig,
  deploymentConfigSchema,
  loadDeploymentConfig,
  parseDeploymentConfig,
  type ResolvedDeploymentConfig,
} from './config.js';
export { type ComposeOptions, composeDeployment, type Deployment } from './deployment.js';
export {
  createExecutionStack,
  type ExecutionStack,
  type ExecutionStackOptions,
} from './executor.js';
export {
  type PackageContext,
  type PackageContribution,
  type PackageStatus,
  TOOL_PACKAGES,
  type ToolPackageEntry,
} from './packages/index.js';
export { defaultDataDirectory, invocationDirectory } from './paths.js';
