// The discovery group's ids and options.
import type { ToolExecutor } from '@toolsys/core-tool-registry';

/** The ids of the discovery tools: what an MCP client lists in `discover` mode. */
export const DISCOVERY_TOOL_IDS = ['tool_search', 'tool_describe', 'tool_call'] as const;

/** The discovery tools themselves, which tool_search never lists and tool_call never calls. */
export const DISCOVERY = new Set<string>(DISCOVERY_TOOL_IDS);

/** Options for {@link createDiscoveryTools}. */
export interface DiscoveryToolsOptions {
  /** The executor whose registry is searched and through which `tool_call` runs (same gates). */
  executor: ToolExecutor;
}
