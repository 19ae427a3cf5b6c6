import type { z } from 'zod';
import type { AnyToolDefinition } from '../contract/tool.js';
import type { ToolExecutor } from '../contract/tool-executor.js';
import type { ToolEnvironmentState } from '../policies/environment-gate.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolPackageOfferings } from './package-offerings.js';

/** Whether a package is on in a deployment, and why (shown by `toolsys doctor`). */
export interface ToolPackageStatus {
  /** True when the package's backend was found and its tools should be registered. */
  readonly enabled: boolean;
  /** One line for people: what was found, or what is missing and how to provide it. */
  readonly reason: string;
}

/** What every package entry is given: the deployment as it concerns that package. */
export interface ToolPackageEnvironment<Config> {
  /** The package's own section of `toolsys.config.json` (`packages.<key>`), parsed by its schema. */
  readonly config: Config;
  /** Directory file and shell tools are confined to (absolute). */
  readonly workspaceRoot: string;
  /** Directory for the deployment's own files: databases, artifacts, traces (absolute). */
  readonly dataDir: string;
  /** Directory relative paths in the config resolve against: the config file's, else the cwd. */
  readonly configDir: string;
  /** The environment the deployment was loaded in (backend detection, token sources). */
  readonly env: NodeJS.ProcessEnv;
  /**
   * This replica's name (`server.replicaName`), when the deployment runs as one of several:
   * handles the package mints put it in front (`mintHandle(kind, replicaName)`), so a load
   * balancer can route the calls that carry one back here.
   */
  readonly replicaName?: string;
  /**
   * Which probes `detect` should run. `all` (the default): every probe, for a full `reason`
   * (`toolsys doctor`). `deciding`: a server is starting and waits on the answer, so run only the
   * probes that decide whether the package is on, and leave those that only refine `reason`.
   */
  readonly probes?: 'all' | 'deciding';
}

/** What {@link ToolPackageEntry.create} is given. */
export interface ToolPackageContext<Config> extends ToolPackageEnvironment<Config> {
  /** The deployment's registry (read it; the host registers the returned tools itself). */
  readonly registry: ToolRegistry;
  /** The deployment's executor, for tools that call other tools. */
  readonly executor: ToolExecutor;
  /**
   * The telemetry the executor's environment gate reads (screen locked, keyboard shown …), when
   * the deployment has one: packages that observe a device record what they see here.
   */
  readonly environment?: ToolEnvironmentState;
  /**
   * `serve`: a real deployment. `gate`: every package forced on only to list its ids (the tool-id
   * gate, README tables); an entry must not contact backends or write files then.
   */
  readonly mode: 'serve' | 'gate';
}

/** The tools a package contributes and how to release what it holds. */
export interface ToolPackageContribution {
  /** The tool definitions to register, in order. */
  readonly tools: readonly AnyToolDefinition[];
  /** Releases what `create` started (processes, databases, browsers); called once on shutdown. */
  dispose?(): Promise<void> | void;
  /**
   * Releases what one client session held (a browser context, its tabs …) when that session
   * ends: an MCP session closed or evicted. The id is the `sessionId` tools saw in their context.
   */
  endSession?(sessionId: string): Promise<void> | void;
  /**
   * What the package offers MCP clients besides tools: prompts, resources, resource templates
   * and completers (see {@link ToolPackageOfferings}). Listed only while the package is on.
   */
  readonly offerings?: ToolPackageOfferings;
}

/**
 * One tool package as a deployment composes it: the host loads built-in packages and any other
 * package a config names by npm name through this interface, so a third-party package composes
 * with no host change. Export it as the package's `toolPackage` named export.
 */
export interface ToolPackageEntry<Config = unknown> {
  /** The npm name, used as the owner of its tools (duplicate-id errors name it). */
  readonly name: string;
  /** Short key of its section in `toolsys.config.json` `packages` (e.g. `app-browser`). */
  readonly key: string;
  /** One line on what the package provides (doctor, docs). */
  readonly description: string;
  /**
   * The schema of the package's config section. It should be strict so misspelled keys are
   * errors; the host adds the common `enabled` and `groups` switches itself.
   */
  readonly configSchema: z.ZodType<Config>;
  /** Decides whether the package is on in this deployment; must not throw for a missing backend. */
  detect(
    environment: ToolPackageEnvironment<Config>,
  ): Promise<ToolPackageStatus> | ToolPackageStatus;
  /** Builds the package's tools (called only when detect said on, or the config forces it). */
  create(
    context: ToolPackageContext<Config>,
  ): Promise<ToolPackageContribution> | ToolPackageContribution;
}

/** An entry whose config type does not matter to the caller (the host's list of packages). */
// biome-ignore lint/suspicious/noExplicitAny: config types vary per package; each entry checks its own.
export type AnyToolPackageEntry = ToolPackageEntry<any>;

/** Declares a package entry with its config type inferred from the schema. */
export function defineToolPackage<Config>(
  entry: ToolPackageEntry<Config>,
): ToolPackageEntry<Config> {
  return entry;
}

/** True when `value` has the shape of a {@link ToolPackageEntry} (third-party packages are checked). */
export function isToolPackageEntry(value: unknown): value is AnyToolPackageEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.name === 'string' &&
    typeof entry.key === 'string' &&
    typeof entry.detect === 'function' &&
    typeof entry.create === 'function' &&
    typeof entry.configSchema === 'object' &&
    entry.configSchema !== null &&
    typeof (entry.configSchema as { safeParse?: unknown }).safeParse === 'function'
  );
}
