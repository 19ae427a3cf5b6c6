// mcp_list: the servers, their status and the tools each offers, as the deployment knows them.
import type { Tool } from '@modelcontextprotocol/client';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import {
  cleanUntrustedLine,
  cleanUntrustedText,
  escapeInvisible,
  markUntrusted,
  untrustedMarkers,
} from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { McpServerState } from '../mcp-server-state.js';
import { approveCommand, diffCommand } from '../pins/quarantine-errors.js';
import { stripTerminalControls } from '../terminal-text.js';
import { listNames, type McpToolsShared, stateData } from './shared.js';

const listSchema = ToolSchema.object({
  server: z.string().min(1).optional().describe('Only this server.'),
  refresh: z.boolean().default(false).describe('Reconnect and relist.'),
  includeSchemas: z.boolean().default(false).describe('Show input schemas.'),
});

/** `mcp_list`: lists the servers and their tools; starts servers only with `refresh`. */
export function createMcpListTool(shared: McpToolsShared): AnyToolDefinition {
  const { approvals } = shared;
  const listTool = defineTool({
    id: 'mcp_list',
    description: 'Lists MCP servers, their status and tools.',
    inputSchema: listSchema,
    metadata: {
      category: 'mcp',
      risk: 'LOW',
      tags: ['mcp'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.quickRead,
    async execute(args, context) {
      const manager = shared.managerFor(context);
      const names = args.server === undefined ? manager.names() : [args.server];
      if (args.server !== undefined && !manager.has(args.server)) {
        return failureResult(ToolErrorCode.NOT_FOUND, `No MCP server named "${args.server}".`, {
          field: 'server',
          hint: `Use a configured server${listNames(manager)}.`,
        });
      }
      if (args.refresh) {
        // Imported servers start only once the user approves them, one question at a time; a
        // refused one is listed as it is, not started.
        const approved: string[] = [];
        for (const name of names) {
          if ((await approvals.authorise(name, context)) === undefined) approved.push(name);
        }
        await Promise.all(
          approved.map((name) =>
            manager.refreshTools(name, { signal: context.signal }).catch(() => undefined),
          ),
        );
      }
      const states = names.map((name) => manager.state(name));
      const unapproved = new Set(names.filter((name) => !approvals.isApproved(name, context)));
      if (states.length === 0) {
        return successResult(
          'No MCP servers are configured. Connect one with mcp_connect (command or url).',
          { data: { servers: [] } },
        );
      }
      return successResult(renderStates(states, args.includeSchemas, unapproved), {
        data: { servers: states.map((state) => stateData(state, args.includeSchemas)) },
      });
    },
  });

  return listTool;
}

/**
 * `mcp_list`'s text: per server a header line of what the deployment knows (name, status,
 * target), then everything the server sent (its name and version, tool descriptions and
 * schemas, names left out, its last error) cleaned and between `<untrusted-mcp-server-content>`
 * markers, under one notice for the whole result.
 */
function renderStates(
  states: readonly McpServerState[],
  includeSchemas: boolean,
  unapproved: ReadonlySet<string>,
): string {
  let marked = false;
  const blocks = states.map((state) => {
    const rendered = renderState(state, includeSchemas, unapproved.has(state.name));
    marked ||= rendered.marked;
    return rendered.text;
  });
  const notice = marked ? `${untrustedMarkers('mcp-server').notice}\n\n` : '';
  return `${notice}${blocks.join('\n\n')}`;
}

function renderState(
  state: McpServerState,
  includeSchemas: boolean,
  unapproved: boolean,
): { text: string; marked: boolean } {
  const name = cleanUntrustedLine(state.name, 64);
  const target = cleanUntrustedLine(state.target, 300);
  const lines = [
    `${name} — ${state.status}${state.connectedVia ? ` via ${state.connectedVia}` : ''}${state.protocol ? `, MCP ${cleanUntrustedLine(state.protocol.version, 20)}` : ''}${state.trusted ? ', trusted' : ''}${state.adHoc ? ', ad hoc' : ''}${state.imported ? ', imported' : ''} — ${target}`,
  ];
  if (unapproved) {
    lines.push(
      '  imported from a client config file: used only once the user approves it in this session (mcp_connect, mcp_call or mcp_list with refresh: true asks)',
    );
  }
  if (state.retryAfterMs !== undefined) lines.push(`  next attempt in ${state.retryAfterMs} ms`);
  if (state.catalogStale) lines.push('  tool list may be out of date (the last refresh failed)');
  if (state.catalogTruncated) lines.push(`  tool list cut: ${state.catalogTruncated}`);
  if (state.quarantinedTools.length > 0) {
    lines.push(
      `  QUARANTINED (changed or new since approved; not callable until the user runs \`${diffCommand(state.name)}\` then \`${approveCommand(state.name)}\`): ${state.quarantinedTools.map((tool) => `${tool.name} (${tool.reason})`).join(', ')}`,
    );
  }
  if (state.rejectedTools.length > 0) {
    lines.push(
      `  ${state.rejectedTools.length} tool(s) left out: their names are not plain MCP names (letters, digits, "_", "." and "-", at most 128), so they cannot be called (names shown escaped below)`,
    );
  }
  if (state.tools.length === 0) {
    lines.push(
      state.status === 'connected'
        ? '  no tools'
        : '  tools unknown until connected (mcp_connect, or mcp_list with refresh: true)',
    );
  }
  const remote: string[] = [];
  if (state.serverInfo) {
    remote.push(
      `server: ${cleanUntrustedLine(state.serverInfo.name, 100)} ${cleanUntrustedLine(state.serverInfo.version, 40)}`,
    );
  }
  if (state.lastError) remote.push(`last error: ${cleanUntrustedLine(state.lastError, 500)}`);
  for (const rejected of state.rejectedTools) {
    remote.push(`left out: ${escapeInvisible(rejected.name).slice(0, 300)}`);
  }
  for (const tool of state.tools) {
    const hints = describeHints(tool);
    const description = firstLine(tool.description ?? tool.title ?? '');
    remote.push(
      `${tool.name}${hints ? ` [${hints}]` : ''}${description ? ` — ${description}` : ''}`,
    );
    if (includeSchemas) {
      remote.push(`  inputSchema: ${cleanUntrustedLine(JSON.stringify(tool.inputSchema), 20_000)}`);
    }
  }
  if (remote.length === 0) return { text: lines.join('\n'), marked: false };
  lines.push(markUntrusted(remote.join('\n'), 'mcp-server'));
  return { text: lines.join('\n'), marked: true };
}

function describeHints(tool: Tool): string {
  const annotations = tool.annotations;
  if (!annotations) return '';
  const hints: string[] = [];
  if (annotations.readOnlyHint === true) hints.push('read-only');
  if (annotations.destructiveHint === true && annotations.readOnlyHint !== true)
    hints.push('destructive');
  if (annotations.idempotentHint === true) hints.push('idempotent');
  if (annotations.openWorldHint === true) hints.push('open-world');
  return hints.join(', ');
}

function firstLine(text: string): string {
  const clean = cleanUntrustedText(stripTerminalControls(text)).text;
  const line = clean.split('\n')[0]?.trim() ?? '';
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
