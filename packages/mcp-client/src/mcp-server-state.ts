// What the manager tells about one server (its status, catalog and failures), and how a server's
// tool listing becomes that catalog.
import type { Tool } from '@modelcontextprotocol/client';
import type { McpTransportKind } from './mcp-client.js';
import type { McpServerConfig } from './mcp-server-config.js';
import type { QuarantinedTool } from './pins/tool-pins.js';
import type { McpEra } from './protocol-era.js';

/** Where a server's connection stands. */
export type McpConnectionStatus = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'failed';

/** A snapshot of one server, as `mcp_list` shows it. Never contains env values or headers. */
export interface McpServerState {
  /** The configured name. */
  readonly name: string;
  /** Command line or URL (without credentials). */
  readonly target: string;
  /** Configured transport. */
  readonly transport: McpServerConfig['transport'];
  /** The transport actually used by the live connection. */
  readonly connectedVia?: McpTransportKind;
  /**
   * The protocol of the live connection: its era (`legacy` for the 2025 `initialize` handshake,
   * `modern` for the stateless 2026-07-28 protocol) and revision.
   */
  readonly protocol?: { readonly era: McpEra; readonly version: string };
  /** Where the connection stands. */
  readonly status: McpConnectionStatus;
  /** Whether the server's hints may relax gates. */
  readonly trusted: boolean;
  /** Whether it was added at run time by `mcp_connect` rather than configured. */
  readonly adHoc: boolean;
  /** Whether it comes from an imported client config file (see `importedFrom` of its config). */
  readonly imported: boolean;
  /** Whether it is imported and nobody has approved starting it yet (see {@link McpManager.approve}). */
  readonly awaitingApproval: boolean;
  /** The last good tool catalog (kept when a refresh fails or times out). */
  readonly tools: readonly Tool[];
  /** Whether the last catalog refresh failed, so `tools` may be out of date. */
  readonly catalogStale: boolean;
  /** What the last listing cut (too many pages or tools, a repeated cursor); absent when nothing. */
  readonly catalogTruncated?: string;
  /** Tools the server listed that were left out, with the reason (a name that is not plain). */
  readonly rejectedTools: readonly RejectedTool[];
  /** Tools changed since they were approved, or new: not listed, not callable until approved. */
  readonly quarantinedTools: readonly QuarantinedTool[];
  /** Name and version the server announced. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** The last connection or catalog error, for the model. */
  readonly lastError?: string;
  /** Connection attempts that failed in a row. */
  readonly consecutiveFailures: number;
  /** When failed: how long until the next connection attempt is allowed, in ms. */
  readonly retryAfterMs?: number;
}

/** A tool a server listed that the manager left out of its catalog. */
export interface RejectedTool {
  /** The name as the server sent it (may hold control or invisible characters: escape it to show it). */
  readonly name: string;
  /** Why it was left out. */
  readonly reason: string;
}

/** What an MCP tool name may be: `[A-Za-z0-9_.-]`, 1 to 128 characters (the MCP spec's names). */
const PLAIN_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Splits a listing into the tools kept and those left out: a name that is not a plain MCP name
 * (`[A-Za-z0-9_.-]{1,128}`) could forge lines or markers wherever it is shown, and no model
 * could name it back in a call.
 */
export function partitionByName(tools: readonly Tool[]): {
  kept: Tool[];
  rejected: RejectedTool[];
} {
  const kept: Tool[] = [];
  const rejected: RejectedTool[] = [];
  for (const tool of tools) {
    if (typeof tool.name === 'string' && PLAIN_TOOL_NAME.test(tool.name)) kept.push(tool);
    else {
      rejected.push({
        name: String(tool.name),
        reason:
          'its name is not a plain MCP tool name (letters, digits, "_", "." and "-", at most 128)',
      });
    }
  }
  return { kept, rejected };
}

/** A catalog by tool name; of a name listed twice, the first entry (as a scan finds it). */
export function indexByName(tools: readonly Tool[]): ReadonlyMap<string, Tool> {
  const byName = new Map<string, Tool>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  return byName;
}
