// Composing a deployment from its plan: one registry and one executor stack, every package started
// as its detection answers, its selected tools registered, late packages registered when they answer.
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
import type { ResolvedDeploymentConfig } from './config.js';
import { escapingConfirm } from './confirmation-text.js';
import { DeploymentKey, DeploymentKeyError, loadDeploymentKey } from './deployment-key.js';
import { type PackageReport, type PlannedPackage, planDeployment } from './deployment-plan.js';
import { createExecutionStack, type ExecutionStack } from './execution-stack.js';
import { excludedTools, offPackageTools } from './off-tools.js';
import { HostOfferings } from './offerings/host-offerings.js';
import type { PackageSection } from './packages/package-section.js';
import { replicaNameOf } from './replica-name.js';
import { loadScaleOut } from './scale-out.js';
import type { ServerOfferings } from './server/offerings.js';
import { RecentArtifacts } from './server/recent-artifacts.js';
import { isToolSelected } from './tool-selection.js';

export type { PackageReport } from './deployment-plan.js';

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
   * This replica's name (`TOOLSYS_REPLICA_NAME`, else `server.replicaName`), in front of the
   * handles its tools mint; undefined when unnamed.
   */
  readonly replicaName: string | undefined;
  /**
   * Settles once every package's probe has answered and its tools are registered (at once
   * without `detectionBoundMs`). `statuses` is final after it; `toolsys doctor` waits for it.
   */
  readonly settled: Promise<void>;
  /**
   * Ends one client session: its permission answers are forgotten (and deleted from Redis) and
   * every package releases what the session held.
   */
  endSession(sessionId: string): Promise<void>;
  /**
   * Prompts (skills, shortcuts, what packages offer), resources, templates (artifacts among
   * them), completion and subscriptions MCP clients get besides tools.
   */
  readonly offerings: ServerOfferings;
  /**
   * The artifacts the servers linked in call results, the last 1,000: the only files of the data
   * directory served as resources, each to the principal whose call linked it.
   */
  readonly artifacts: RecentArtifacts;
  /**
   * The key every replica shares (environment, else generated in the data directory), loaded on
   * first use: it seals protocol state handed to clients and keys the audit log's digests.
   */
  deploymentKey(): Promise<DeploymentKey>;
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
  /**
   * Longest wait for the packages' probes before the deployment is returned, in ms. A package
   * whose probe has not answered by then is registered when it answers (the registry change
   * becomes `tools/list_changed`); `statuses` says "still detecting" until then and
   * {@link Deployment.settled} settles when all have answered. Default: wait for every probe
   * (one-shot CLI commands and `doctor` need the full answer).
   */
  detectionBoundMs?: number;
}

/** How many linked artifacts a deployment keeps readable as resources. */
const MAX_READABLE_ARTIFACTS = 1_000;

/** One package's way through detection and creation. */
type PackageOutcome =
  | { readonly kind: 'off'; readonly report: PackageReport }
  | {
      readonly kind: 'on';
      readonly entry: AnyToolPackageEntry;
      readonly section: PackageSection;
      readonly reason: string;
      readonly contribution: ToolPackageContribution;
    };

/**
 * Composes a deployment: every package that is on contributes its tools to one registry, run by
 * one executor. A package that fails to start is reported off, never breaks the host; two packages
 * registering the same id is a start-up error naming both. Tool selection (`tools.include`,
 * `exclude`, package `groups`) is applied, and sentences of descriptions that point at tools this
 * deployment does not have are dropped.
 *
 * Every package is detected at once (probes run concurrently). With `detectionBoundMs`, the
 * deployment is returned once that time has passed even if some probes have not answered; see
 * {@link ComposeOptions.detectionBoundMs} for what happens to those packages.
 */
export async function composeDeployment(
  config: ResolvedDeploymentConfig,
  options: ComposeOptions = {},
): Promise<Deployment> {
  const deploymentPlan = await planDeployment(config, options);
  const { statuses, environmentOf } = deploymentPlan;
  const planned = deploymentPlan.packages;
  const registry = new ToolRegistry();
  // Loaded before the first call: audit lines key their argument digests with it.
  const argumentsKey = config.config.audit?.enabled === false ? undefined : await auditKey(config);
  let deploymentKey: Promise<DeploymentKey> | undefined;
  const stack = createExecutionStack({
    registry,
    deployment: config,
    scaleOut: await loadScaleOut(config),
    ...(argumentsKey ? { argumentsKey } : {}),
    // Every question of every tool is escaped here, before any prompt or elicitation shows it.
    ...(options.confirm ? { confirm: escapingConfirm(options.confirm) } : {}),
    ...(options.unconfirmableHint ? { unconfirmableHint: options.unconfirmableHint } : {}),
  });
  const toolMode = config.config.tools?.mode ?? 'all';
  const artifacts = new RecentArtifacts(MAX_READABLE_ARTIFACTS);
  const offerings = new HostOfferings({
    registry,
    workspaceRoot: config.workspaceRoot,
    artifacts: { dataDir: config.dataDir, linked: artifacts },
    toolMode,
  });
  const contributions: ToolPackageContribution[] = [];
  let closed = false;

  const start = (plan: PlannedPackage, status: ToolPackageStatus): Promise<PackageOutcome> =>
    startPackage(plan, status, {
      environment: environmentOf(plan.section),
      registry,
      stack,
      isClosed: () => closed,
    });

  /** A package that is off: its tools are listed as off (read on first need, in gate mode). */
  const noteOff = (plan: PlannedPackage, report: PackageReport) => {
    registry.off.addSource(
      offPackageTools(plan.entry, report, environmentOf(plan.section), stack.executor, config),
    );
  };
  /** The tools of a started package that the configuration leaves out are listed as off. */
  const noteExcluded = (outcome: Extract<PackageOutcome, { kind: 'on' }>) => {
    registry.off.add(
      excludedTools(outcome.entry, outcome.section, outcome.contribution.tools, config),
    );
  };

  /**
   * Renders the JSON Schemas of a started package's tools while other probes are still out: the
   * thread would otherwise wait idle for them, and registering and listing read every schema.
   */
  const warmSchemas = (outcome: PackageOutcome): PackageOutcome => {
    if (outcome.kind === 'on')
      for (const tool of selectTools(outcome, config)) void tool.inputSchema.jsonSchema;
    return outcome;
  };

  // Every package is detected and started at once: the probes (a PTY, Chromium, adb, bwrap, a
  // token …) wait on other processes and the file system, not on this thread.
  // Only the probes are bounded: creating a package is this thread's own work, and a package
  // whose probe has answered is always started before the deployment is returned.
  const runs = planned.map((plan) => {
    const detection = deploymentPlan.detection(plan);
    const run = {
      plan,
      detected: false,
      done: detection.then((status) => start(plan, status)).then(warmSchemas),
    };
    void detection.then(() => {
      run.detected = true;
    });
    return run;
  });
  const everything = Promise.all(runs.map((run) => run.done));
  if (options.detectionBoundMs === undefined) {
    await everything;
  } else {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      everything,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.detectionBoundMs);
      }),
    ]);
    clearTimeout(timer);
  }

  const ready = runs.filter((run) => run.detected);
  const late = runs.filter((run) => !run.detected);
  const readyOutcomes = await Promise.all(ready.map((run) => run.done));
  try {
    const selected: Array<{ owner: string; tools: AnyToolDefinition[] }> = [];
    for (const [index, run] of ready.entries()) {
      const outcome = readyOutcomes[index] as PackageOutcome;
      if (outcome.kind === 'off') {
        statuses.set(run.plan.entry.key, outcome.report);
        noteOff(run.plan, outcome.report);
        continue;
      }
      contributions.push(outcome.contribution);
      if (outcome.contribution.offerings) offerings.addPackage(outcome.contribution.offerings);
      const tools = selectTools(outcome, config);
      noteExcluded(outcome);
      selected.push({ owner: outcome.entry.name, tools });
      statuses.set(outcome.entry.key, {
        name: outcome.entry.name,
        enabled: true,
        reason: outcome.reason,
        tools: tools.length,
      });
    }
    const ids = new Set(selected.flatMap(({ tools }) => tools.map((tool) => tool.id)));
    const isTool = (id: string) => ids.has(id) || registry.has(id);
    for (const { owner, tools } of selected) registerTools(registry, owner, tools, isTool);
  } catch (error) {
    closed = true;
    offerings.close();
    await disposeAll(contributions);
    await Promise.all(late.map((run) => run.done.then(disposeOutcome)));
    await stack.close();
    throw error;
  }

  // Packages whose probes have not answered yet. Their tools are NOT listed now: they are
  // registered when the probe answers, and the registry change reaches MCP clients as
  // `notifications/tools/list_changed`. Listing them before the probe answers would show the model
  // tools that may all fail (no device, no browser) and cost context in every request, while the
  // mechanism for late tools already exists (MCP servers connected later register theirs the
  // same way). A client that ignores list_changed sees them on its next tools/list.
  let lateChain = Promise.resolve();
  for (const run of late) {
    statuses.set(run.plan.entry.key, {
      name: run.plan.entry.name,
      enabled: false,
      reason: 'still detecting (its tools are announced with tools/list_changed when found)',
      tools: 0,
    });
    // One at a time, in registration order among the late ones.
    lateChain = lateChain.then(async () => {
      const outcome = await run.done;
      if (closed) {
        await disposeOutcome(outcome);
        return;
      }
      if (outcome.kind === 'off') {
        statuses.set(run.plan.entry.key, outcome.report);
        noteOff(run.plan, outcome.report);
        return;
      }
      const tools = selectTools(outcome, config);
      noteExcluded(outcome);
      const ids = new Set(tools.map((tool) => tool.id));
      try {
        registerTools(registry, outcome.entry.name, tools, (id) => ids.has(id) || registry.has(id));
      } catch (error) {
        // Too late to refuse start-up: the package stays off and says why.
        await disposeOutcome(outcome);
        statuses.set(run.plan.entry.key, {
          name: outcome.entry.name,
          enabled: false,
          reason: `failed to register: ${(error as Error).message}`,
          tools: 0,
        });
        return;
      }
      contributions.push(outcome.contribution);
      if (outcome.contribution.offerings) offerings.addPackage(outcome.contribution.offerings);
      statuses.set(run.plan.entry.key, {
        name: outcome.entry.name,
        enabled: true,
        reason: outcome.reason,
        tools: tools.length,
      });
    });
  }
  const settled = lateChain;

  return {
    config,
    registry,
    executor: stack.executor,
    permissions: stack.permissions,
    usage: stack.usage,
    stack,
    statuses,
    toolMode,
    replicaName: replicaNameOf(config),
    settled,
    offerings,
    artifacts,
    deploymentKey: () => {
      deploymentKey ??= loadDeploymentKey(config);
      return deploymentKey;
    },
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
      // A probe still running is not waited for: its package is disposed when it answers.
      closed = true;
      offerings.close();
      await disposeAll(contributions);
      await stack.close();
    },
  };
}

/** What {@link startPackage} hands a package besides its plan. */
interface StartContext {
  /** The package's environment (its section's config, directories, env). */
  readonly environment: ToolPackageEnvironment<unknown>;
  readonly registry: ToolRegistry;
  readonly stack: ExecutionStack;
  /** Whether the deployment was closed meanwhile: a package is then not started. */
  isClosed(): boolean;
}

/**
 * Creates a package once its detection answered. It stays off when disabled in the config, when
 * not detected (unless the config forces it on), when the deployment closed meanwhile, or when
 * `create` throws (the reason says so).
 */
async function startPackage(
  { entry, section }: PlannedPackage,
  status: ToolPackageStatus,
  { environment, registry, stack, isClosed }: StartContext,
): Promise<PackageOutcome> {
  if (section.enabled === false) {
    return { kind: 'off', report: { name: entry.name, ...status, tools: 0 } };
  }
  if (!status.enabled && section.enabled !== true) {
    return { kind: 'off', report: { name: entry.name, ...status, tools: 0 } };
  }
  if (isClosed()) {
    return { kind: 'off', report: { name: entry.name, ...status, enabled: false, tools: 0 } };
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
    return {
      kind: 'off',
      report: {
        name: entry.name,
        enabled: false,
        reason: `failed to start: ${(error as Error).message}`,
        tools: 0,
      },
    };
  }
  return { kind: 'on', entry, section, reason: status.reason, contribution };
}

/** The tools of a started package that the deployment's selection keeps. */
function selectTools(
  outcome: Extract<PackageOutcome, { kind: 'on' }>,
  config: ResolvedDeploymentConfig,
): AnyToolDefinition[] {
  const toolMode = config.config.tools?.mode ?? 'all';
  const origin = { packageKey: outcome.entry.key, groups: outcome.section.groups };
  return outcome.contribution.tools.filter(
    (tool) =>
      (toolMode === 'discover' && isDiscoveryTool(tool.id)) ||
      isToolSelected(tool, origin, config.config.tools),
  );
}

/**
 * Registers a package's tools (a taken id is an error naming both owners), dropping the sentences
 * of their descriptions that point at tools the deployment does not have.
 */
function registerTools(
  registry: ToolRegistry,
  owner: string,
  tools: readonly AnyToolDefinition[],
  isTool: (id: string) => boolean,
): void {
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

async function disposeOutcome(outcome: PackageOutcome): Promise<void> {
  if (outcome.kind === 'on') await disposeAll([outcome.contribution]);
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

/**
 * The deployment key for audit digests. A data directory that cannot hold a key (read-only, no
 * room) gives a key of this process only, said once on stderr: digests stay keyed, and match only
 * within the process. A malformed key in the environment is a start-up error.
 */
async function auditKey(config: ResolvedDeploymentConfig): Promise<DeploymentKey> {
  try {
    return await loadDeploymentKey(config);
  } catch (error) {
    if (error instanceof DeploymentKeyError) throw error;
    process.stderr.write(
      `toolsys: no deployment key could be kept in the data directory (${(error as Error).message}); audit digests use a key of this process only.\n`,
    );
    return DeploymentKey.generate();
  }
}
