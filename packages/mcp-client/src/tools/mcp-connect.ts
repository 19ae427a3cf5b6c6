// mcp_connect: connects a configured server, or an ad hoc one (a command or URL) after asking.
import {
  type AnyToolDefinition,
  DEFAULT_ARGUMENT_DESCRIPTION_LIMITS,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  type ToolContext,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { cleanUntrustedLine } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { McpManager } from '../mcp-manager.js';
import type { McpServerConfig } from '../mcp-server-config.js';
import { describeServerTarget } from '../mcp-server-config.js';
import type { McpServerState } from '../mcp-server-state.js';
import { describeServerApproval, type ServerApprovalOptions } from '../server-approval-text.js';
import { listNames, type McpAdHocPolicy, type McpToolsShared, stateData } from './shared.js';

const connectSchema = ToolSchema.object({
  server: z.string().min(1).max(64).optional().describe('Server name (configured or new).'),
  command: z.string().min(1).optional().describe('Ad hoc executable, e.g. "npx".'),
  args: z.array(z.string()).max(64).optional().describe('Its arguments.'),
  env: z.record(z.string(), z.string()).optional().describe('Its environment.'),
  url: z.string().url().optional().describe('Ad hoc endpoint URL.'),
  transport: z.enum(['http', 'streamable-http', 'sse']).default('http').describe('For url.'),
  headers: z.record(z.string(), z.string()).optional().describe('For url: request headers.'),
});

/** `mcp_connect`: connects a configured server, or an ad hoc one once the policy allows it. */
export function createMcpConnectTool(shared: McpToolsShared): AnyToolDefinition {
  const { adHoc, approvals } = shared;
  const connectTool = defineTool({
    id: 'mcp_connect',
    description: 'Connects an MCP server (configured, or ad hoc after asking) and lists its tools.',
    inputSchema: connectSchema,
    metadata: {
      category: 'mcp',
      risk: 'MEDIUM',
      tags: ['mcp'],
      annotations: {
        ...ToolHints.mutating,
        idempotentHint: true,
        openWorldHint: true,
        sensitiveAction: true,
      },
    },
    runPolicy: RunPolicies.mutating,
    async execute(args, context) {
      const manager = shared.managerFor(context);
      if (args.command !== undefined && args.url !== undefined) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          'give either command or url, not both',
          {
            field: 'url',
          },
        );
      }
      const adHocConfig = args.command !== undefined || args.url !== undefined;
      if (!adHocConfig) {
        if (args.server === undefined) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            'server: required when neither command nor url is given',
            {
              field: 'server',
              hint: `Give the name of a configured server${listNames(manager)}, or a command or url for an ad hoc server.`,
            },
          );
        }
        if (manager.has(args.server)) {
          const refused = await approvals.authorise(args.server, context);
          if (refused) return refused;
          if (manager.client(args.server)?.isConnected) {
            await manager.refreshTools(args.server, { signal: context.signal });
            return connectedResult(manager.state(args.server));
          }
          return connectedResult(await manager.connect(args.server, { signal: context.signal }));
        }
        return failureResult(ToolErrorCode.NOT_FOUND, `No MCP server named "${args.server}".`, {
          field: 'server',
          hint: `Use a configured server${listNames(manager)}, or give command or url to connect an ad hoc one.`,
        });
      }
      const name = args.server ?? deriveName(args.command, args.url, manager);
      if (!/^[A-Za-z0-9_-]+$/.test(name)) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `server: "${name}" may contain only letters, digits, "_" and "-"`,
          { field: 'server' },
        );
      }
      const existing = manager.has(name) ? manager.state(name) : undefined;
      if (existing && !existing.adHoc) {
        return failureResult(
          ToolErrorCode.INVALID_ARGUMENT,
          `server: "${name}" is a configured server; choose another name for an ad hoc server`,
          { field: 'server' },
        );
      }
      const config: McpServerConfig =
        args.command !== undefined
          ? {
              name,
              transport: 'stdio',
              command: args.command,
              ...(args.args ? { args: args.args } : {}),
              ...(args.env ? { env: args.env } : {}),
            }
          : {
              name,
              transport: args.transport,
              url: args.url as string,
              ...(args.headers ? { headers: args.headers } : {}),
            };
      if (config.transport !== 'stdio') {
        const protocol = new URL(config.url).protocol;
        if (protocol !== 'http:' && protocol !== 'https:') {
          return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'url: use an http: or https: URL', {
            field: 'url',
          });
        }
      }
      const refusal = await authoriseAdHoc(adHoc, config, context, {
        workspaceRoot: shared.workspaceRoot,
      });
      if (refusal) return refusal;
      manager.add(config, { adHoc: true, replace: true });
      try {
        return connectedResult(await manager.connect(name, { signal: context.signal }));
      } catch (error) {
        // A server that never came up is not kept: the next attempt starts clean.
        await manager.remove(name);
        throw error;
      }
    },
  });

  return connectTool;
}

async function authoriseAdHoc(
  policy: McpAdHocPolicy,
  config: McpServerConfig,
  context: ToolContext,
  describeOptions: ServerApprovalOptions,
) {
  if (policy === 'deny') {
    return failureResult(
      ToolErrorCode.PERMISSION_DENIED,
      'This deployment does not allow ad hoc MCP servers.',
      { hint: 'Use a configured server (mcp_list shows them); do not retry with another command.' },
    );
  }
  if (policy === 'allow') return undefined;
  // The user sees everything that will run: the program, its arguments and its environment.
  const described = await describeServerApproval(config, describeOptions);
  if (described.length > DEFAULT_ARGUMENT_DESCRIPTION_LIMITS.maxLength) {
    // No one approves what they cannot read through; a partial prompt is never shown.
    return failureResult(
      ToolErrorCode.PERMISSION_DENIED,
      `This ad hoc MCP server takes ${described.length} characters to show for approval, more than ${DEFAULT_ARGUMENT_DESCRIPTION_LIMITS.maxLength}, so the user was not asked.`,
      { hint: 'Use fewer or shorter arguments and environment values, or a configured server.' },
    );
  }
  const action =
    config.transport === 'stdio'
      ? `Start an unconfigured MCP server: ${described}`
      : `Connect to an unconfigured MCP server at ${described}`;
  const decision = await context.confirm({
    action,
    risk: 'HIGH',
    reason:
      'An ad hoc MCP server runs a program or reaches a URL that the deployment did not configure.',
  });
  if (decision === 'deny') {
    const target =
      config.transport === 'stdio'
        ? `start an unconfigured MCP server: ${describeServerTarget(config)}`
        : `connect to an unconfigured MCP server at ${describeServerTarget(config)}`;
    return failureResult(ToolErrorCode.PERMISSION_DENIED, `The user did not allow: ${target}.`, {
      hint: 'Change approach; use a configured server or ask the user to configure this one.',
    });
  }
  return undefined;
}

function connectedResult(state: McpServerState) {
  const tools = state.tools.map((tool) => tool.name);
  const stale = state.catalogStale ? ' (tool list may be out of date: the refresh failed)' : '';
  const cut = state.catalogTruncated ? ` (tool list cut: ${state.catalogTruncated})` : '';
  const left =
    state.rejectedTools.length > 0
      ? ` ${state.rejectedTools.length} tool(s) left out: their names are not plain MCP names (mcp_list shows them).`
      : '';
  // Tool names are plain (others are left out), so they cannot forge anything here.
  return successResult(
    `Connected to MCP server "${cleanUntrustedLine(state.name, 64)}" (${state.connectedVia ?? state.transport}). ${tools.length} tool(s)${stale}${cut}: ${tools.join(', ') || 'none'}.${left} Call them with mcp_call {server: "${cleanUntrustedLine(state.name, 64)}", tool, arguments}; mcp_list shows their descriptions.`,
    { data: stateData(state, false) },
  );
}

function deriveName(
  command: string | undefined,
  url: string | undefined,
  manager: McpManager,
): string {
  let base = 'adhoc';
  if (command !== undefined) {
    base = command.split(/[\\/]/).pop() ?? 'adhoc';
  } else if (url !== undefined) {
    try {
      base = new URL(url).hostname;
    } catch {
      base = 'adhoc';
    }
  }
  const clean = base.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'adhoc';
  let name = clean;
  for (let index = 2; manager.has(name) && !manager.state(name).adHoc; index += 1) {
    name = `${clean}_${index}`;
  }
  return name;
}
