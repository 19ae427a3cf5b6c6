// mcp_call: calls a tool on a server, connecting it first and checking the arguments when needed.
import type { Tool } from '@modelcontextprotocol/client';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  mayAbortWithin,
  type ToolContext,
  ToolErrorCode,
  ToolHints,
  type ToolResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { toToolResult } from '../call-result.js';
import type { McpCallOptions } from '../mcp-client.js';
import { MAX_CALL_TIMEOUT_MS, MCP_CALL_POLICY } from '../mcp-run-policies.js';
import { quarantinedResult } from '../pins/quarantine-errors.js';
import { callWithProgress } from '../progress-emitter.js';
import type { McpToolsShared } from './shared.js';

/** Margin between the executor's time limit and a request's own, for the two clocks' drift. */
const SIGNAL_SLACK_MS = 1_000;

const callSchema = ToolSchema.object({
  server: z.string().min(1).describe('Server (mcp_list).'),
  tool: z.string().min(1).describe('Tool name on that server.'),
  arguments: z.record(z.string(), z.unknown()).default({}).describe("The remote tool's arguments."),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_CALL_TIMEOUT_MS)
    .optional()
    .describe('Time limit in ms.'),
});

/** The validated arguments of mcp_call. */
type CallArgs = typeof callSchema extends ToolSchema<infer T> ? T : never;

/** `mcp_call`: calls a remote tool (after the user approved an imported server). */
export function createMcpCallTool(shared: McpToolsShared): AnyToolDefinition {
  const { approvals, schemas, suggester, defaultTimeoutMs } = shared;
  const callTool = defineTool({
    id: 'mcp_call',
    description: 'Calls a tool on an MCP server. After a timeout the outcome is unknown.',
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
      if (!approvals.isApproved(args.server, context)) {
        return approveThenSend(args, context);
      }
      // Connected, and the tool in the catalog (the common case): checked and sent without an
      // async frame of this handler's own (each costs a turn of the job queue on every call).
      const manager = shared.managerFor(context);
      const remote = manager.connectedTool(args.server, args.tool);
      return remote ? send(remote, args, context) : connectThenSend(args, context);
    },
  });

  /** Asks the user to approve an imported server, then goes on as usual. */
  async function approveThenSend(args: CallArgs, context: ToolContext): Promise<ToolResult> {
    const refused = await approvals.authorise(args.server, context);
    if (refused) return refused;
    const manager = shared.managerFor(context);
    const remote = manager.connectedTool(args.server, args.tool);
    return remote ? send(remote, args, context) : connectThenSend(args, context);
  }

  /** Connects when needed and refreshes the catalog for a tool not (yet) in it, then sends. */
  async function connectThenSend(args: CallArgs, context: ToolContext): Promise<ToolResult> {
    const { server, tool } = args;
    const manager = shared.managerFor(context);
    if (!manager.client(server)?.isConnected) {
      await manager.connect(server, { signal: context.signal });
    }
    let remote = findTool(manager.tools(server), tool);
    if (!remote) {
      await manager.refreshTools(server, { signal: context.signal });
      remote = findTool(manager.tools(server), tool);
    }
    if (!remote) {
      const held = manager.quarantinedTool(server, tool);
      if (held) return quarantinedResult(server, tool, held.reason);
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
    const manager = shared.managerFor(context);
    const invalid = schemas.check(remote, args.arguments);
    if (invalid) return Promise.resolve(prefixFailure(invalid.error, server, tool));
    const timeoutMs = args.timeoutMs ?? manager.config(server)?.timeoutMs ?? defaultTimeoutMs;
    const callOptions: McpCallOptions = { timeoutMs };
    // The request's own timeout cancels it on the server. The call's signal is handed on when
    // it can fire before that (a caller that can cancel, or a shorter executor time limit);
    // otherwise it is not even made (an AbortSignal per call costs more than the rest).
    if (mayAbortWithin(context, timeoutMs + SIGNAL_SLACK_MS)) callOptions.signal = context.signal;
    return callWithProgress(context, callOptions, (options) =>
      manager.callToolWith(server, remote.name, args.arguments, toToolResult, options),
    );
  }

  return callTool;
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
