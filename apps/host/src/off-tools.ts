/**
 * What a deployment tells of the tools it knows but does not serve: those its configuration leaves
 * out, and those of a package that is off (no token, no device, disabled). A model that calls or
 * searches for one learns why it is off and how to turn it on.
 */
import {
  type AnyToolDefinition,
  type AnyToolPackageEntry,
  type ToolExecutor,
  type ToolPackageEnvironment,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import type { ResolvedDeploymentConfig } from './config.js';
import type { PackageReport } from './deployment-plan.js';
import type { PackageSection } from './packages/package-section.js';
import { exclusionOf } from './tool-selection.js';

/** A tool that is off here (the kernel registry's `off` entries). */
type OffTool = Awaited<ReturnType<ToolRegistry['off']['list']>>[number];

/** Where the configuration is, for the next step. */
function configName(config: ResolvedDeploymentConfig): string {
  return config.file ?? 'the deployment config';
}

/** The tools of a started package that its configuration leaves out, each with the setting. */
export function excludedTools(
  entry: AnyToolPackageEntry,
  section: PackageSection,
  tools: readonly AnyToolDefinition[],
  config: ResolvedDeploymentConfig,
): OffTool[] {
  const origin = { packageKey: entry.key, groups: section.groups };
  const off: OffTool[] = [];
  for (const tool of tools) {
    const setting = exclusionOf(tool, origin, config.config.tools);
    if (setting === undefined) continue;
    off.push({
      id: tool.id,
      owner: entry.name,
      reason: `the configuration leaves it out (${setting})`,
      hint: `Ask the user to change that setting in ${configName(config)} if this tool is needed.`,
      description: tool.description,
    });
  }
  return off;
}

/**
 * Reads the tools of a package that is off, when first needed: the package is created in gate
 * mode, which lists its tools without contacting a backend or writing a file.
 */
export function offPackageTools(
  entry: AnyToolPackageEntry,
  report: PackageReport,
  environment: ToolPackageEnvironment<unknown>,
  executor: ToolExecutor,
  config: ResolvedDeploymentConfig,
): () => Promise<OffTool[]> {
  const hint =
    report.reason === 'disabled in config'
      ? `Ask the user to set packages.${entry.key}.enabled to true in ${configName(config)}.`
      : 'Ask the user to fix what the reason names, then to restart toolsys (packages are detected when it starts); toolsys doctor shows the state of every package.';
  return async () => {
    const contribution = await entry.create({
      ...environment,
      registry: new ToolRegistry(),
      executor,
      mode: 'gate',
    });
    try {
      return contribution.tools.map((tool) => ({
        id: tool.id,
        owner: entry.name,
        reason: `its package is off: ${report.reason}`,
        hint,
        description: tool.description,
      }));
    } finally {
      await contribution.dispose?.();
    }
  };
}
