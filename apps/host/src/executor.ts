import {
  type ConfirmFunction,
  DefaultToolExecutor,
  RiskAwareToolGate,
  type ToolExecutor,
  ToolPermissionManager,
  type ToolRegistry,
  ToolUsageTracker,
} from '@toolsys/core-tool-registry';
import type { ResolvedDeploymentConfig } from './config.js';

/** The execution pieces of a deployment. */
export interface ExecutionStack {
  readonly executor: ToolExecutor;
  readonly permissions: ToolPermissionManager;
  readonly usage: ToolUsageTracker;
  /** Releases what the stack holds (trace files, timers). */
  close(): Promise<void>;
}

/** Options for {@link createExecutionStack}. */
export interface ExecutionStackOptions {
  registry: ToolRegistry;
  deployment: ResolvedDeploymentConfig;
  /** Asks the user; calls that need asking are refused without it. */
  confirm?: ConfirmFunction;
}

/** Builds the executor with the deployment's permission policy. */
export function createExecutionStack(options: ExecutionStackOptions): ExecutionStack {
  const { registry, deployment, confirm } = options;
  const permissionConfig = deployment.config.permissions ?? {};
  const permissions = new ToolPermissionManager({
    ...(confirm ? { confirm } : {}),
    policy: {
      ...(permissionConfig.LOW ? { LOW: permissionConfig.LOW } : {}),
      ...(permissionConfig.MEDIUM ? { MEDIUM: permissionConfig.MEDIUM } : {}),
      ...(permissionConfig.HIGH ? { HIGH: permissionConfig.HIGH } : {}),
    },
    alwaysAllowed: permissionConfig.alwaysAllow ?? [],
  });
  const usage = new ToolUsageTracker();
  const executor = new DefaultToolExecutor({
    registry,
    gate: new RiskAwareToolGate(permissions),
    usageTracker: usage,
    ...(confirm ? { confirm } : {}),
  });
  return { executor, permissions, usage, close: async () => {} };
}
