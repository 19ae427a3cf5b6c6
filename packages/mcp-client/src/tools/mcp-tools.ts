import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type AnyToolDefinition,
  cleanUntrustedLine,
  cleanUntrustedText,
  DEFAULT_ARGUMENT_DESCRIPTION_LIMITS,
  defineTool,
  defuseMarkers,
  escapeInvisible,
  failureResult,
  hasEventSink,
  markUntrusted,
  mayAbortWithin,
  RunPolicies,
  successResult,
  type ToolContext,
  ToolErrorCode,
  ToolHints,
  type ToolResult,
  ToolSchema,
  ToolSuggester,
  untrustedMarkers,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { toToolResult } from '../call-result.js';
import type { McpCallOptions } from '../mcp-client.js';
import type { McpManager, McpServerState } from '../mcp-manager.js';
import { MAX_CALL_TIMEOUT_MS, MCP_CALL_POLICY } from '../mcp-run-policies.js';
import type { McpServerConfig } from '../mcp-server-config.js';
import { describeServerTarget } from '../mcp-server-config.js';
import {
  type ProgressThrottle,
  progressEmitter,
  withProgressThrottle,
} from '../progress-emitter.js';
import { RemoteSchemaCache } from '../remote-schema-cache.js';
import { describeServerApproval, type ServerApprovalOptions } from '../server-approval-text.js';
import { McpServerApprovals } from '../server-approvals.js';
import { stripTerminalControls } from '../terminal-text.js';

/** How `mcp_connect` treats servers that are not configured (a command or URL from the model). */
export type McpAdHocPolicy = 'confirm' | 'allow' | 'deny';

/** Options for {@link createMcpTools}. */
export interface McpToolsOptions {
  /** The manager holding the deployment's servers. Creating the tools contacts no server. */
  manager: McpManager;
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

/** Margin between the executor's time limit and a request's own, for the two clocks' drift. */
const SIGNAL_SLACK_MS = 1_000;

const connectSchema = ToolSchema.object({
  server: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      'Name of a configured server (see mcp_list), or the name to give a new ad hoc server. Letters, digits, "_" and "-".',
    ),
  command: z
    .string()
    .min(1)
    .optional()
    .describe('Ad hoc stdio server: the executable to start, e.g. "npx". Not run through a shell.'),
  args: z
    .array(z.string())
    .max(64)
    .optional()
    .describe(
      'Arguments of the ad hoc command, e.g. ["-y", "@modelcontextprotocol/server-memory"].',
    ),
  env: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'Environment of the ad hoc command (nothing else of the host environment is passed but PATH, HOME, USER, SHELL, TERM, LOGNAME).',
    ),
  url: z
    .string()
    .url()
    .optional()
    .describe('Ad hoc remote server: its MCP endpoint, e.g. "http://127.0.0.1:3001/mcp".'),
  transport: z
    .enum(['http', 'streamable-http', 'sse'])
    .default('http')
    .describe('For url: "http" tries Streamable HTTP then falls back to SSE.'),
  headers: z.record(z.string(), z.string()).optional().describe('For url: extra request headers.'),
});

const listSchema = ToolSchema.object({
  server: z.string().min(1).optional().describe('Only this server. Default: every server.'),
  refresh: z
    .boolean()
    .default(false)
    .describe(
      'Connect servers that are not connected yet and list their tools again. A failed refresh keeps the last known tools.',
    ),
  includeSchemas: z
    .boolean()
    .default(false)
    .describe('Also show each tool inputSchema (long); use it before calling an unfamiliar tool.'),
});

const callSchema = ToolSchema.object({
  server: z.string().min(1).describe('Server name, as shown by mcp_list.'),
  tool: z.string().min(1).describe('Tool name on that server, as shown by mcp_list.'),
  arguments: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('Arguments of the remote tool; checked against its inputSchema before sending.'),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_CALL_TIMEOUT_MS)
    .optional()
    .describe(
      'Time limit in ms (max 300000). On expiry the server is told to cancel. Default: the server setting or 60000.',
    ),
});

/** The validated arguments of mcp_call. */
type CallArgs = typeof callSchema extends ToolSchema<infer T> ? T : never;

/**
 * The three MCP client tools: `mcp_connect`, `mcp_list` and `mcp_call`. Call once per deployment;
 * the returned array holds each id exactly once.
 */
export function createMcpTools(options: McpToolsOptions): AnyToolDefinition[] {
  const { manager } = options;
  const adHoc = options.adHoc ?? 'confirm';
  const defaultTimeoutMs = options.defaultCallTimeoutMs ?? 60_000;
  const schemas = new RemoteSchemaCache();
  const approvals = options.approvals ?? new McpServerApprovals(manager);
  const suggester = new ToolSuggester();

  const connectTool = defineTool({
    id: 'mcp_connect',
    description:
      'Connects an MCP server and lists its tools. Give `server` to connect a configured server (mcp_list shows them). An ad hoc server (`command` + `args`, or `url`) runs a program or reaches a URL nobody configured, so it is HIGH risk and asks the user first. Then call the tools with mcp_call. Reconnecting a connected server just refreshes its tool list.',
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
        workspaceRoot: options.workspaceRoot,
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

  const listTool = defineTool({
    id: 'mcp_list',
    description:
      'Lists MCP servers with their status (connected, failed, not yet connected) and the tools each offers, with their hints (read-only, destructive, idempotent). Does not start servers unless refresh is true. Use it to find the server and tool names for mcp_call; includeSchemas shows each tool inputSchema.',
    inputSchema: listSchema,
    metadata: {
      category: 'mcp',
      risk: 'LOW',
      tags: ['mcp'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.quickRead,
    async execute(args, context) {
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
      const unapproved = new Set(
        names.filter((name) => !approvals.isApproved(name, context.sessionId)),
      );
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

  const callTool = defineTool({
    id: 'mcp_call',
    description:
      'Calls a tool on an MCP server (connecting it first when needed) and returns its output; structured output is kept. Arguments are checked against the remote inputSchema before anything is sent. Use mcp_list to find server and tool names. A call that times out is cancelled on the server; its outcome is then unknown, so check before repeating a call that changes state.',
    inputSchema: callSchema,
    metadata: {
      category: 'mcp',
      risk: 'MEDIUM',
      tags: ['mcp'],
      annotations: { ...ToolHints.destructive, openWorldHint: true },
    },
    runPolicy: MCP_CALL_POLICY,
    execute(args, context) {
      // An imported server is contacted only once the user approved it in this session.
      if (!approvals.isApproved(args.server, context.sessionId)) {
        return approveThenSend(args, context);
      }
      // Connected, and the tool in the catalog (the common case): checked and sent without an
      // async frame of this handler's own (each costs a turn of the job queue on every call).
      const remote = manager.connectedTool(args.server, args.tool);
      return remote ? send(remote, args, context) : connectThenSend(args, context);
    },
  });

  /** Asks the user to approve an imported server, then goes on as usual. */
  async function approveThenSend(args: CallArgs, context: ToolContext): Promise<ToolResult> {
    const refused = await approvals.authorise(args.server, context);
    if (refused) return refused;
    const remote = manager.connectedTool(args.server, args.tool);
    return remote ? send(remote, args, context) : connectThenSend(args, context);
  }

  /** Connects when needed and refreshes the catalog for a tool not (yet) in it, then sends. */
  async function connectThenSend(args: CallArgs, context: ToolContext): Promise<ToolResult> {
    const { server, tool } = args;
    if (!manager.client(server)?.isConnected) {
      await manager.connect(server, { signal: context.signal });
    }
    let remote = findTool(manager.tools(server), tool);
    if (!remote) {
      await manager.refreshTools(server, { signal: context.signal });
      remote = findTool(manager.tools(server), tool);
    }
    if (!remote) {
      const names = manager.tools(server).map((candidate) => candidate.name);
      const close = suggester.suggest(tool, names);
      return failureResult(
        ToolErrorCode.NOT_FOUND,
        `MCP server "${server}" has no tool "${tool}".${close.length > 0 ? ` Did you mean: ${close.join(', ')}?` : ''}`,
        {
          field: 'tool',
          hint:
            close.length > 0
              ? `Call mcp_call with tool set to one of: ${close.join(', ')}.`
              : `Run mcp_list with server "${server}" to see its tools.`,
          details: { server, tool, suggestions: close },
        },
      );
    }
    return send(remote, args, context);
  }

  /** Checks the arguments against the remote inputSchema and sends the call. */
  function send(remote: Tool, args: CallArgs, context: ToolContext): Promise<ToolResult> {
    const { server, tool } = args;
    const invalid = schemas.check(remote, args.arguments);
    if (invalid) return Promise.resolve(prefixFailure(invalid.error, server, tool));
    const timeoutMs = args.timeoutMs ?? manager.config(server)?.timeoutMs ?? defaultTimeoutMs;
    const callOptions: McpCallOptions = { timeoutMs };
    // The request's own timeout cancels it on the server. The call's signal is handed on when
    // it can fire before that (a caller that can cancel, or a shorter executor time limit);
    // otherwise it is not even made (an AbortSignal per call costs more than the rest).
    if (mayAbortWithin(context, timeoutMs + SIGNAL_SLACK_MS)) callOptions.signal = context.signal;
    // Progress is requested only when someone receives it: a progress token makes the server
    // and the SDK do extra work on every call.
    let throttle: ProgressThrottle | undefined;
    if (hasEventSink(context)) {
      throttle = progressEmitter(context);
      callOptions.onProgress = throttle.push;
    }
    return withProgressThrottle(
      throttle,
      manager.callToolWith(server, remote.name, args.arguments, toToolResult, callOptions),
    );
  }

  return [connectTool, listTool, callTool];
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
    `${name} — ${state.status}${state.connectedVia ? ` via ${state.connectedVia}` : ''}${state.trusted ? ', trusted' : ''}${state.adHoc ? ', ad hoc' : ''}${state.imported ? ', imported' : ''} — ${target}`,
  ];
  if (unapproved) {
    lines.push(
      '  imported from a client config file: used only once the user approves it in this session (mcp_connect, mcp_call or mcp_list with refresh: true asks)',
    );
  }
  if (state.retryAfterMs !== undefined) lines.push(`  next attempt in ${state.retryAfterMs} ms`);
  if (state.catalogStale) lines.push('  tool list may be out of date (the last refresh failed)');
  if (state.catalogTruncated) lines.push(`  tool list cut: ${state.catalogTruncated}`);
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

function stateData(state: McpServerState, includeSchemas: boolean): Record<string, unknown> {
  return {
    name: state.name,
    status: state.status,
    transport: state.transport,
    ...(state.connectedVia ? { connectedVia: state.connectedVia } : {}),
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

function findTool(tools: readonly Tool[], name: string): Tool | undefined {
  return tools.find((tool) => tool.name === name);
}

function prefixFailure(
  error: { message: string; field?: string; details?: Record<string, unknown> },
  server: string,
  tool: string,
) {
  const issues = (error.details?.issues as Array<{ field: string; problem: string }>) ?? [];
  const described =
    issues.length > 0
      ? issues
          .slice(0, 5)
          .map(({ field, problem }) => `${field ? `arguments.${field}` : 'arguments'}: ${problem}`)
          .join('; ')
      : `arguments: ${error.message}`;
  return failureResult(ToolErrorCode.INVALID_ARGUMENT, described, {
    field: error.field ? `arguments.${error.field}` : 'arguments',
    hint: `Fix the arguments to match the inputSchema of "${tool}" on "${server}" (mcp_list with includeSchemas shows it) and retry.`,
    details: { server, tool, issues },
  });
}

function listNames(manager: McpManager): string {
  const names = manager.names();
  return names.length > 0 ? ` (${names.join(', ')})` : '';
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
