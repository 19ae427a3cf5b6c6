// The MCP client tools: mcp_connect, mcp_list and mcp_call, built over one manager.
import { type AnyToolDefinition, ToolSuggester } from '@toolsys/core-tool-registry';
import { RemoteSchemaCache } from '../remote-schema-cache.js';
import { McpServerApprovals } from '../server-approvals.js';
import { createMcpCallTool } from './mcp-call.js';
import { createMcpConnectTool } from './mcp-connect.js';
import { createMcpListTool } from './mcp-list.js';
import type { McpToolsOptions, McpToolsShared } from './shared.js';

export type { McpAdHocPolicy, McpToolsOptions } from './shared.js';

/**
 * The three MCP client tools: `mcp_connect`, `mcp_list` and `mcp_call`. Call once per deployment;
 * the returned array holds each id exactly once.
 */
export function createMcpTools(options: McpToolsOptions): AnyToolDefinition[] {
  const { manager } = options;
  const shared: McpToolsShared = {
    manager,
    managerFor: options.managerFor ?? (() => manager),
    adHoc: options.adHoc ?? 'confirm',
    defaultTimeoutMs: options.defaultCallTimeoutMs ?? 60_000,
    schemas: new RemoteSchemaCache(),
    approvals: options.approvals ?? new McpServerApprovals(options.managerFor ?? (() => manager)),
    suggester: new ToolSuggester(),
    workspaceRoot: options.workspaceRoot,
  };
  return [createMcpConnectTool(shared), createMcpListTool(shared), createMcpCallTool(shared)];
}
