// Builds the discovery group: tool_search, tool_describe and tool_call.
import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { DiscoveryToolsOptions } from './shared.js';
import { callTool } from './tool-call.js';
import { describeTool } from './tool-describe.js';
import { searchTool } from './tool-search.js';

export { DISCOVERY_TOOL_IDS, type DiscoveryToolsOptions } from './shared.js';

/**
 * The three meta tools of `discover` mode: `tool_search`, `tool_describe` and `tool_call`. With
 * only these listed, a client's context holds a few hundred tokens however many tools are composed,
 * and every tool stays one search away.
 */
export function createDiscoveryTools(options: DiscoveryToolsOptions): AnyToolDefinition[] {
  return [searchTool(options.executor), describeTool(options.executor), callTool(options.executor)];
}
