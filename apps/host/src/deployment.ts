import {
  type AnyToolDefinition,
  type ConfirmFunction,
  resolveMetadata,
  type ToolExecutor,
  type ToolPermissionManager,
  ToolRegistry,
  type ToolUsageTracker,
} from '@toolsys/core-tool-registry';
import type { DeploymentConfig, ResolvedDeploymentConfig } from './config.js';
import { createExecutionStack, type ExecutionStack } from './executor.js';
import { TOOL_PACKAGES } from './packages/index.js';
import type { PackageContribution, PackageStatus, ToolPackageEntry } from './packages/types.js';

/** A composed deployment: the registry, the executor and what each package did. */
export interface Deployment {
  readonly config: ResolvedDeploymentConfig;
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  readonly permissions: ToolPermissionManager;
  readonly usage: ToolUsageTracker;
  readonly stack: ExecutionStack;
  /** Per package key: on or off, and why. */
  readonly statuses: ReadonlyMap<
    string,
    PackageStatus & { readonly name: string; readonly tools: number }
  >;
  /** Releases every package's resources. */
  close(): Promise<void>;
}

/** Options for {@link composeDeployment}. */
export interface ComposeOptions {
  /** Asks the user for confirmations (CLI prompt, MCP elicitation). */
  confirm?: ConfirmFunction;
  /** The packages to compose; default: every workspace package. */
  packages?: readonly ToolPackageEntry[];
}

/**
 * Composes a deployment: every package that is on contributes its tools to one registry, run by
 * one executor. A package that fails to start is reported off, never breaks the host; two packages
 * registering the same id is a start-up error naming both.
 */
export async function composeDeployment(
  config: ResolvedDeploymentConfig,
  options: ComposeOptions = {},
): Promise<Deployment> {
  const registry = new ToolRegistry();
  const stack = createExecutionStack({
    registry,
    deployment: config,
    ...(options.confirm ? { confirm: options.confirm } : {}),
  });
  const statuses = new Map<string, PackageStatus & { name: string; tools: number }>();
  const contributions: PackageContribution[] = [];
  for (const entry of options.packages ?? TOOL_PACKAGES) {
    const switched = config.config.packages?.[entry.key]?.enabled;
    if (switched === false) {
      statuses.set(entry.key, {
        name: entry.name,
        enabled: false,
        reason: 'disabled in config',
        tools: 0,
      });
      continue;
    }
    let status: PackageStatus;
    try {
      status = await entry.detect(config);
    } catch (error) {
      status = { enabled: false, reason: `detection failed: ${(error as Error).message}` };
    }
    if (!status.enabled && switched !== true) {
      statuses.set(entry.key, { name: entry.name, ...status, tools: 0 });
      continue;
    }
    try {
      const contribution = await entry.create({
        deployment: config,
        registry,
        executor: stack.executor,
        mode: 'serve',
      });
      registry.registerAll(applyToolSettings(contribution.tools, config.config, entry.key), {
        policy: 'REJECT',
        owner: entry.name,
      });
      contributions.push(contribution);
      statuses.set(entry.key, {
        name: entry.name,
        enabled: true,
        reason: status.reason,
        tools: contribution.tools.length,
      });
    } catch (error) {
      if ((error as Error).name === 'DuplicateToolError') throw error;
      statuses.set(entry.key, {
        name: entry.name,
        enabled: false,
        reason: `failed to start: ${(error as Error).message}`,
        tools: 0,
      });
    }
  }
  return {
    config,
    registry,
    executor: stack.executor,
    permissions: stack.permissions,
    usage: stack.usage,
    stack,
    statuses,
    async close() {
      for (const contribution of contributions.reverse()) {
        try {
          await contribution.dispose?.();
        } catch {
          // Closing continues with the other packages.
        }
      }
      await stack.close();
    },
  };
}

/**
 * Applies the config's tool switches: tools of a category switched off in
 * `packages.<key>.groups` and ids in `tools.disabled` are left out. (Run-policy overrides in
 * `tools.runPolicies` are applied by the executor.)
 */
export function applyToolSettings(
  tools: readonly AnyToolDefinition[],
  config: DeploymentConfig,
  packageKey?: string,
): AnyToolDefinition[] {
  const disabled = new Set(config.tools?.disabled ?? []);
  const groups = (packageKey ? config.packages?.[packageKey]?.groups : undefined) ?? {};
  return tools.filter(
    (tool) =>
      !disabled.has(tool.id) && groups[resolveMetadata(tool.id, tool.metadata).category] !== false,
  );
}
