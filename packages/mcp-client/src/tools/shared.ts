// What the three MCP client tools share: their options, the state built once for all three, and
// the structured view of a server that mcp_connect and mcp_list both return.
import type { ToolContext, ToolSuggester } from '@toolsys/core-tool-registry';
import {
  cleanUntrustedLine,
  cleanUntrustedText,
  defuseMarkers,
  escapeInvisible,
} from '@toolsys/core-tool-registry/text';
import type { McpManager } from '../mcp-manager.js';
import type { McpServerState } from '../mcp-server-state.js';
import type { RemoteSchemaCache } from '../remote-schema-cache.js';
import type { McpServerApprovals } from '../server-approvals.js';

/** How `mcp_connect` treats servers that are not configured (a command or URL from the model). */
export type McpAdHocPolicy = 'confirm' | 'allow' | 'deny';

/** Options for {@link createMcpTools}. */
export interface McpToolsOptions {
  /** The manager holding the deployment's servers. Creating the tools contacts no server. */
  manager: McpManager;
  /**
   * The manager of a call's principal, when each principal has its own (its own connections and
   * sign-ins). Default: {@link manager} for every call.
   */
  managerFor?: (context: Pick<ToolContext, 'principal'>) => McpManager;
  /**
   * Ad hoc servers (a command or URL given in the call): `confirm` (default) asks the user at HIGH
   * risk every time, `allow` connects without asking (tests, sandboxes), `deny` refuses.
   */
  adHoc?: McpAdHocPolicy;
  /** Default time limit of `mcp_call` in ms when neither the call nor the server sets one. Default 60 000. */
  defaultCallTimeoutMs?: number;
  /**
   * The user's approvals of imported servers, shared with a {@link McpToolRegistrar} when there
   * is one. Default: a new one for these tools.
   */
  approvals?: McpServerApprovals;
  /** The workspace: an ad hoc server's program found inside it is named as such when asking. */
  workspaceRoot?: string;
}

/** What the three tools share, built once per {@link createMcpTools} call. */
export interface McpToolsShared {
  /** The manager holding the deployment's servers. */
  readonly manager: McpManager;
  /** The manager of a call's principal (see {@link McpToolsOptions.managerFor}). */
  readonly managerFor: (context: Pick<ToolContext, 'principal'>) => McpManager;
  /** How `mcp_connect` treats servers that are not configured. */
  readonly adHoc: McpAdHocPolicy;
  /** Default time limit of `mcp_call` in ms. */
  readonly defaultTimeoutMs: number;
  /** Compiled remote input schemas, checked before a call is sent. */
  readonly schemas: RemoteSchemaCache;
  /** The user's approvals of imported servers. */
  readonly approvals: McpServerApprovals;
  /** Finds the closest names for an unknown remote tool. */
  readonly suggester: ToolSuggester;
  /** The workspace: an ad hoc server's program found inside it is named as such when asking. */
  readonly workspaceRoot: string | undefined;
}

/** The structured view of a server in mcp_connect's and mcp_list's results. */
export function stateData(state: McpServerState, includeSchemas: boolean): Record<string, unknown> {
  return {
    name: state.name,
    status: state.status,
    transport: state.transport,
    ...(state.connectedVia ? { connectedVia: state.connectedVia } : {}),
    ...(state.protocol ? { protocol: { ...state.protocol } } : {}),
    target: state.target,
    trusted: state.trusted,
    adHoc: state.adHoc,
    imported: state.imported,
    ...(state.awaitingApproval ? { awaitingApproval: true } : {}),
    catalogStale: state.catalogStale,
    ...(state.catalogTruncated ? { catalogTruncated: state.catalogTruncated } : {}),
    ...(state.serverInfo
      ? {
          serverInfo: {
            name: cleanUntrustedLine(state.serverInfo.name, 100),
            version: cleanUntrustedLine(state.serverInfo.version, 40),
          },
        }
      : {}),
    ...(state.lastError ? { lastError: cleanUntrustedLine(state.lastError, 500) } : {}),
    ...(state.retryAfterMs === undefined ? {} : { retryAfterMs: state.retryAfterMs }),
    ...(state.quarantinedTools.length > 0
      ? { quarantinedTools: state.quarantinedTools.map((tool) => ({ ...tool })) }
      : {}),
    ...(state.rejectedTools.length > 0
      ? {
          rejectedTools: state.rejectedTools.map((tool) => ({
            name: escapeInvisible(tool.name).slice(0, 300),
            reason: tool.reason,
          })),
        }
      : {}),
    tools: state.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description
        ? { description: defuseMarkers(cleanUntrustedText(tool.description).text) }
        : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      ...(includeSchemas ? { inputSchema: tool.inputSchema } : {}),
    })),
  };
}

/** ` (a, b)`: the configured server names for a hint, or nothing when there are none. */
export function listNames(manager: McpManager): string {
  const names = manager.names();
  return names.length > 0 ? ` (${names.join(', ')})` : '';
}
