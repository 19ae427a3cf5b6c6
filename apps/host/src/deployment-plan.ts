// Planning a deployment: which packages it composes (the built-in ones and the plugins its config
// names), each with its validated section, and each package's detection started as early as it can.
import type {
  AnyToolPackageEntry,
  ToolPackageEnvironment,
  ToolPackageStatus,
} from '@toolsys/core-tool-registry';
import { ConfigError, type ResolvedDeploymentConfig } from './config.js';
import { closestKeyHint } from './config-issues.js';
import { BUILTIN_PACKAGE_REFS } from './packages/builtin-packages.js';
import { type PackageSection, parsePackageSection } from './packages/package-section.js';
import { loadPlugins } from './packages/plugin-loader.js';
import { replicaNameOf } from './replica-name.js';

/** What `toolsys doctor` and the dashboard show of one package. */
export interface PackageReport extends ToolPackageStatus {
  /** The npm name. */
  readonly name: string;
  /** Tools it registered in this deployment. */
  readonly tools: number;
}

/** What a deployment composes, decided from its config before any package is created. */
export interface DeploymentPlan {
  /** The packages to compose, built-in ones first, each with its validated section. */
  readonly packages: readonly PlannedPackage[];
  /** Reports so far: the plugins that could not be loaded, by plugin name. */
  readonly statuses: Map<string, PackageReport>;
  /** What a package's `detect` and `create` receive, for its section. */
  environmentOf(section: PackageSection): ToolPackageEnvironment<unknown>;
  /** The package's detection (already running for a built-in package); never rejects. */
  detection(planned: PlannedPackage): Promise<ToolPackageStatus>;
}

/** Options for {@link planDeployment}. */
export interface PlanOptions {
  /** The packages to compose instead of the built-in ones (plugins named in the config still load). */
  packages?: readonly AnyToolPackageEntry[];
  /** Set when the deployment bounds its wait for probes: then only the deciding probes run. */
  detectionBoundMs?: number;
}

/**
 * Plans a deployment from its config: loads the built-in packages and the plugins, validates
 * every section (a bad one is a {@link ConfigError}) and starts each built-in package's detection
 * as soon as it is loaded.
 */
export async function planDeployment(
  config: ResolvedDeploymentConfig,
  options: PlanOptions = {},
): Promise<DeploymentPlan> {
  const replicaName = replicaNameOf(config);
  const environmentOf = (section: PackageSection): ToolPackageEnvironment<unknown> => ({
    config: section.config,
    workspaceRoot: config.workspaceRoot,
    dataDir: config.dataDir,
    configDir: config.configDir,
    env: config.env ?? process.env,
    ...(replicaName === undefined ? {} : { replicaName }),
    // A bounded detection (serve) waits only on the probes that decide whether a package is on.
    ...(options.detectionBoundMs === undefined ? {} : { probes: 'deciding' as const }),
  });

  const detect = async ({ entry, section }: PlannedPackage): Promise<ToolPackageStatus> => {
    if (section.enabled === false) return { enabled: false, reason: 'disabled in config' };
    try {
      return await entry.detect(environmentOf(section));
    } catch (error) {
      return { enabled: false, reason: `detection failed: ${(error as Error).message}` };
    }
  };

  const statuses = new Map<string, PackageReport>();
  const sections = withSharedMemory(config.config.packages ?? {});
  // A built-in package's probe starts as soon as that package is imported (its section valid), so
  // that the probes' processes run while the other packages are still loading.
  const earlyDetections = new Map<AnyToolPackageEntry, Promise<ToolPackageStatus>>();
  const loads = (options.packages ?? BUILTIN_PACKAGE_REFS).map(async (source) => {
    const entry = 'load' in source ? await source.load() : source;
    const parsed = parsePackageSection(entry, sections[entry.key]);
    if (!parsed.problems) earlyDetections.set(entry, detect({ entry, section: parsed.section }));
    return entry;
  });
  const builtins = await Promise.all(loads);
  const packages = await planPackages(config, builtins, statuses);
  return {
    packages,
    statuses,
    environmentOf,
    detection: (planned) => earlyDetections.get(planned.entry) ?? detect(planned),
  };
}

/** A package that will be composed, with its validated section. */
export interface PlannedPackage {
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
  const sections = withSharedMemory(config.config.packages ?? {});
  const keys = entries.map((entry) => entry.key);
  const problems: string[] = [];
  // A section no loaded package owns may be that of a plugin that could not be loaded (its key is
  // only known once it loads): then it is reported off with the rest serving, as the plugin is.
  const unloaded = [...statuses.values()].filter((report) => report.reason.startsWith('plugin '));
  for (const key of Object.keys(sections)) {
    if (keys.includes(key) || statuses.has(key)) continue;
    if (unloaded.length > 0) {
      statuses.set(key, {
        name: key,
        enabled: false,
        reason: `packages.${key} names no installed package; it may be the section of ${unloaded.map((report) => report.name).join(' or ')}, which could not be loaded`,
        tools: 0,
      });
      continue;
    }
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
 * The package sections with cs-mem's `shared` taken from `packages.core.memory.shared` when cs-mem
 * does not set it: one switch says whether callers share their memory, notes and graph alike.
 */
export function withSharedMemory(
  sections: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const core = sections.core as { memory?: { shared?: unknown } } | undefined;
  const shared = core?.memory?.shared;
  const csMem = sections['cs-mem'];
  if (typeof shared !== 'boolean') return sections;
  if (
    csMem !== undefined &&
    (typeof csMem !== 'object' || csMem === null || Array.isArray(csMem))
  ) {
    return sections;
  }
  if ((csMem as { shared?: unknown } | undefined)?.shared !== undefined) return sections;
  return { ...sections, 'cs-mem': { ...(csMem as object | undefined), shared } };
}
