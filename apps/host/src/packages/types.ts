import type { AnyToolDefinition, ToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import type { ResolvedDeploymentConfig } from '../config.js';

/** What a package entry gets when the host composes a deployment. */
export interface PackageContext {
  readonly deployment: ResolvedDeploymentConfig;
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  /**
   * `serve`: a real deployment. `gate`: every package forced on to list its ids (the tool-id gate);
   * entries must not contact backends then, only build their tool definitions.
   */
  readonly mode: 'serve' | 'gate';
}

/** Whether a package is on, and why (shown by `toolsys doctor`). */
export interface PackageStatus {
  readonly enabled: boolean;
  readonly reason: string;
}

/** The tools a package contributes and how to release what it holds. */
export interface PackageContribution {
  readonly tools: AnyToolDefinition[];
  dispose?(): Promise<void> | void;
}

/** One workspace package as the host composes it. */
export interface ToolPackageEntry {
  /** The npm name, used as the owner of its tools. */
  readonly name: string;
  /** Short key in `toolsys.config.json` `packages`. */
  readonly key: string;
  /** Decides whether the package is on in this deployment. */
  detect(deployment: ResolvedDeploymentConfig): Promise<PackageStatus> | PackageStatus;
  /** Builds the package's tools. */
  create(context: PackageContext): Promise<PackageContribution> | PackageContribution;
}
