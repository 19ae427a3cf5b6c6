import type { AnyToolDefinition } from '../tool.js';

/** Options for {@link createNetworkTools}. */
export interface NetworkToolsOptions {
  /** Directory downloads are written into. */
  workspaceRoot: string;
}

/** `web_fetch`, `web_search`, `http_request` and `download_file`. */
export function createNetworkTools(_options: NetworkToolsOptions): AnyToolDefinition[] {
  return [];
}
