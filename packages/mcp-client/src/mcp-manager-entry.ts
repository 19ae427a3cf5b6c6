// The manager's record of one server: its config, connection, catalog and failures.
import type { Tool } from '@modelcontextprotocol/client';
import type { McpClient } from './mcp-client.js';
import type { McpServerConfig } from './mcp-server-config.js';
import type { McpConnectionStatus, RejectedTool } from './mcp-server-state.js';
import type { QuarantinedTool } from './pins/tool-pins.js';

/** What the manager keeps of one server. */
export interface Entry {
  config: McpServerConfig;
  adHoc: boolean;
  status: McpConnectionStatus;
  client: McpClient | undefined;
  pending: Promise<McpClient> | undefined;
  tools: readonly Tool[];
  /** The same catalog by tool name (a name listed twice: the first entry, as a scan finds it). */
  toolsByName: ReadonlyMap<string, Tool>;
  catalogStale: boolean;
  catalogTruncated: string | undefined;
  rejectedTools: readonly RejectedTool[];
  /** The tools of the last listing (before pins), for checking them again after an approval. */
  listed: readonly Tool[];
  /** The tools the pins hold back. */
  quarantined: readonly QuarantinedTool[];
  /** The refresh running now, which a new request joins. */
  refreshing: Promise<string | undefined> | undefined;
  /** Whether a list_changed arrived during the running refresh (one more follows it). */
  refreshQueued: boolean;
  /** When the last refresh started (`now()`), for the least interval between them. */
  refreshStartedAt: number;
  /** The timer of a refresh waiting for the least interval. */
  refreshTimer: ReturnType<typeof setTimeout> | undefined;
  lastError: string | undefined;
  failures: number;
  nextAttemptAt: number;
  generation: number;
  /** Whether the user approved starting (or contacting) an imported server. */
  approved: boolean;
}

/** The record of a server just added: idle, no catalog, imported ones not approved yet. */
export function newEntry(config: McpServerConfig, adHoc: boolean): Entry {
  return {
    config,
    adHoc,
    status: 'idle',
    client: undefined,
    pending: undefined,
    tools: [],
    toolsByName: new Map(),
    catalogStale: false,
    catalogTruncated: undefined,
    rejectedTools: [],
    listed: [],
    quarantined: [],
    refreshing: undefined,
    refreshQueued: false,
    refreshStartedAt: Number.NEGATIVE_INFINITY,
    refreshTimer: undefined,
    lastError: undefined,
    failures: 0,
    nextAttemptAt: 0,
    generation: 0,
    approved: config.importedFrom === undefined,
  };
}
