import {
  type AnyToolDefinition,
  type AnyToolPackageEntry,
  type ConfirmationRequest,
  type ConfirmFunction,
  pruneToolPointers,
  type ToolExecutor,
  type ToolPackageContribution,
  type ToolPackageEnvironment,
  type ToolPackageStatus,
  type ToolPermissionManager,
  ToolRegistry,
  type ToolUsageTracker,
} from '@toolsys/core-tool-registry';
import { DISCOVERY_TOOL_IDS } from '@toolsys/core-tools';
import { ConfigError, type ResolvedDeploymentConfig } from './config.js';
import { closestKeyHint } from './config-issues.js';
import { escapingConfirm } from './confirmation-text.js';
import { createExecutionStack, type ExecutionStack, loadScaleOut } from './executor.js';
import { BUILTIN_PACKAGES, loadPlugins } from './packages/index.js';
import { type PackageSection, parsePackageSection } from './packages/package-section.js';
import { isToolSelected } from './tool-selection.js';

/** What `toolsys doctor` and the dashboard show of one package. */
export interface PackageReport extends ToolPackageStatus {
  /** The npm name. */
  readonly name: string;
  /** Tools it registered in this deployment. */
  readonly tools: number;
}

/** A composed deployment: the registry, the executor and what each package did. */
export interface Deployment {
  readonly config: ResolvedDeploymentConfig;
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  readonly permissions: ToolPermissionManager;
  readonly usage: ToolUsageTracker;
  readonly stack: ExecutionStack;
  /** Per package key (or plugin name, when it failed to load): on or off, and why. */
  readonly statuses: ReadonlyMap<string, PackageReport>;
  /** What MCP clients list: every tool, or only the discovery tools. */
  readonly toolMode: 'all' | 'discover';
  /**
   * Ends one client session: its permission answers are forgotten (and deleted from Redis) and
   * every package releases what the session held.
   */
  endSession(sessionId: string): Promise<void>;
  /** Releases every package's resources. */
  close(): Promise<void>;
}

/** Options for {@link composeDeployment}. */
export interface ComposeOptions {
  /** Asks the user for confirmations (CLI prompt, MCP elicitation). */
  confirm?: ConfirmFunction;
  /** The next step when a call needs confirming and no one can confirm (e.g. the CLI's `--yes`). */
  unconfirmableHint?: (request: ConfirmationRequest) => string;
  /** The packages to compose instead of the built-in ones (plugins named in the config still load). */
  packages?: readonly AnyToolPackageEntry[];
}

/** A package that will be composed, with its validated section. */
interface PlannedPackage {
  readonly entry: AnyToolPackageEntry;
  readonly section: PackageSection;
}

/**
 * Resolves which packages a deployment composes: the built-in ones and the plugins its config
 * names, each with its section validated. A bad section or an unknown package key is a
 * {@link ConfigError} naming the field and the closest valid key; a plugin that cannot be loaded
 * is reported, never thrown.
 */
async function planPackages(
  config: ResolvedDeploymentConfig,
  builtins: readonly AnyToolPackageEntry[],
  statuses: Map<string, PackageReport>,
): Promise<PlannedPackage[]> {
  const entries = [...builtins];
  for (const plugin of await loadPlugins(config.config.plugins ?? [], config.configDir)) {
    if (plugin.error !== undefined) {
      statuses.set(plugin.name, {
        name: plugin.name,
        enabled: false,
        reason: `plugin ${plugin.error}`,
        tools: 0,
      });
      continue;
    }
    const clash = entries.find((entry) => entry.key === plugin.entry.key);
    if (clash) {
      throw new ConfigError(
        `plugins: ${plugin.name} uses the package key "${plugin.entry.key}", already taken by ${clash.name}`,
      );
    }
    entries.push(plugin.entry);
  }
  const sections = config.config.packages ?? {};
  const keys = entries.map((entry) => entry.key);
  const problems: string[] = [];
  for (const key of Object.keys(sections)) {
    if (keys.includes(key) || statuses.has(key)) continue;
    problems.push(`  packages.${key}: unknown package "${key}"${closestKeyHint(key, keys)}`);
  }
  const planned: PlannedPackage[] = [];
  for (const entry of entries) {
    const result = parsePackageSection(entry, sections[entry.key]);
    if (result.problems) problems.push(...result.problems);
    else planned.push({ entry, section: result.section });
  }
  if (problems.length > 0) {
    throw new ConfigError(
      `${config.file ?? 'the deployment config'} is invalid:\n${problems.join('\n')}`,
    );
  }
  return planned;
}

/**
 * Composes a deployment: every package that is on contributes its tools to one registry, run by
 * one executor. A package that fails to start is reported off, never breaks the host; two packages
 * registering the same id is a start-up error naming both. Tool selection (`tools.include`,
 * `exclude`, package `groups`) is applied, and sentences of descriptions that point at tools this
 * deployment does not have are dropped.
 */
export async function composeDeployment(
  config: ResolvedDeploymentConfig,
  options: ComposeOptions = {},
): Promise<Deployment> {
  const statuses = new Map<string, PackageReport>();
  const planned = await planPackages(config, options.packages ?? BUILTIN_PACKAGES, statuses);
  const registry = new ToolRegistry();
  const stack = createExecutionStack({
    registry,
    deployment: config,
    scaleOut: await loadScaleOut(config),
    // Every question of every tool is escaped here, before any prompt or elicitation shows it.
    ...(options.confirm ? { confirm: escapingConfirm(options.confirm) } : {}),
    ...(options.unconfirmableHint ? { unconfirmableHint: options.unconfirmableHint } : {}),
  });
  const toolMode = config.config.tools?.mode ?? 'all';
  const contributions: ToolPackageContribution[] = [];
  const selected: Array<{ owner: string; key: string; tools: AnyToolDefinition[] }> = [];
  try {
    for (const { entry, section } of planned) {
      if (section.enabled === false) {
        statuses.set(entry.key, {
          name: entry.name,
          enabled: false,
          reason: 'disabled in config',
          tools: 0,
        });
        continue;
      }
      const environment: ToolPackageEnvironment<unknown> = {
        config: section.config,
        workspaceRoot: config.workspaceRoot,
        dataDir: config.dataDir,
        configDir: config.configDir,
        env: config.env ?? process.env,
      };
      let status: ToolPackageStatus;
      try {
        status = await entry.detect(environment);
      } catch (error) {
        status = { enabled: false, reason: `detection failed: ${(error as Error).message}` };
      }
      if (!status.enabled && section.enabled !== true) {
        statuses.set(entry.key, { name: entry.name, ...status, tools: 0 });
        continue;
      }
      let contribution: ToolPackageContribution;
      try {
        contribution = await entry.create({
          ...environment,
          registry,
          executor: stack.executor,
          environment: stack.environment,
          mode: 'serve',
        });
      } catch (error) {
        statuses.set(entry.key, {
          name: entry.name,
          enabled: false,
          reason: `failed to start: ${(error as Error).message}`,
          tools: 0,
        });
        continue;
      }
      contributions.push(contribution);
      const origin = { packageKey: entry.key, groups: section.groups };
      const tools = contribution.tools.filter(
        (tool) =>
          (toolMode === 'discover' && isDiscoveryTool(tool.id)) ||
          isToolSelected(tool, origin, config.config.tools),
      );
      selected.push({ owner: entry.name, key: entry.key, tools });
      statuses.set(entry.key, {
        name: entry.name,
        enabled: true,
        reason: status.reason,
        tools: tools.length,
      });
    }
    const ids = new Set(selected.flatMap(({ tools }) => tools.map((tool) => tool.id)));
    const isTool = (id: string) => ids.has(id) || registry.has(id);
    for (const { owner, tools } of selected) {
      registry.registerAll(
        tools.map((tool) => {
          const argumentNames = Object.keys(tool.inputSchema.jsonSchema.properties ?? {});
          const description = pruneToolPointers(
            tool.description,
            (token) => isTool(token) || argumentNames.includes(token),
          );
          return description === tool.description ? tool : { ...tool, description };
        }),
        { policy: 'REJECT', owner },
      );
    }
  } catch (error) {
    await disposeAll(contributions);
    await stack.close();
    throw error;
  }
  return {
    config,
    registry,
    executor: stack.executor,
    permissions: stack.permissions,
    usage: stack.usage,
    stack,
    statuses,
    toolMode,
    async endSession(sessionId) {
      // Its grants go first (from Redis too), so nothing it was allowed outlives it.
      stack.permissions.endSession(sessionId);
      for (const contribution of contributions) {
        try {
          await contribution.endSession?.(sessionId);
        } catch {
          // One package failing to let go does not keep the others from it.
        }
      }
    },
    async close() {
      await disposeAll(contributions);
      await stack.close();
    },
  };
}

/** True for tool_search, tool_describe and tool_call. */
export function isDiscoveryTool(id: string): boolean {
  return (DISCOVERY_TOOL_IDS as readonly string[]).includes(id);
}

async function disposeAll(contributions: ToolPackageContribution[]): Promise<void> {
  for (const contribution of contributions.splice(0).reverse()) {
    try {
      await contribution.dispose?.();
    } catch {
      // Closing continues with the other packages.
    }
  }
}
