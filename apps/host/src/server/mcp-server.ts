import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { ConfirmationDecision, ConfirmFunction, ToolEvent } from '@toolsys/core-tool-registry';
import { isDiscoveryTool } from '../deployment.js';
import { toCallToolResult, toMcpTool } from './mcp-tool-mapping.js';
import type { ToolHost } from './tool-host.js';

/** The server name announced to MCP clients. */
export const MCP_SERVER_NAME = 'toolsys';

/** The host version (its package.json's), announced to MCP clients and printed by `--version`. */
export const HOST_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** How long a confirmation waits for the user before it counts as a denial. */
const CONFIRMATION_TIMEOUT_MS = 10 * 60_000;

const DECISIONS: readonly ConfirmationDecision[] = [
  'allow_once',
  'allow_session',
  'allow_always',
  'deny',
];

/** Options for {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * The session id permission answers are remembered under when the transport has none
   * (stdio). Default `mcp`.
   */
  sessionId?: string;
}

/** An MCP server over a {@link ToolHost}, and how to stop listening to the registry. */
export interface ToolsysMcpServer {
  readonly server: Server;
  /** Stops forwarding registry changes; call when the connection ends. */
  dispose(): void;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Builds an MCP server exposing every tool of the host's registry: input JSON Schema,
 * annotations as MCP hints, output schema and structured content where the tool returns an
 * object. Calls run through the executor; progress becomes `notifications/progress`, streamed
 * output becomes logging messages; a client's cancellation aborts the handler; confirmations go
 * to the user through elicitation when the client supports it. `tools/list_changed` is sent
 * when the registry changes.
 */
export function createMcpServer(host: ToolHost, options: McpServerOptions = {}): ToolsysMcpServer {
  const { registry } = host.deployment;
  const server = new Server(
    { name: MCP_SERVER_NAME, version: HOST_VERSION },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions:
        'Toolsys tools. Failed calls return text starting with "Error: [CODE]" and a "Next:" line saying what to do.',
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
    },
  );

  // `discover` mode lists only the meta tools; `all` lists every tool but those (they would only
  // repeat what is listed), while both modes accept a call of any registered tool.
  const discover = host.deployment.toolMode === 'discover';
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: registry
      .list()
      .filter((tool) => isDiscoveryTool(tool.id) === discover)
      .map(toMcpTool),
  }));

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      const sessionId = extra.sessionId ? `mcp-${extra.sessionId}` : (options.sessionId ?? 'mcp');
      const confirm = server.getClientCapabilities()?.elicitation
        ? elicitingConfirm(extra)
        : undefined;
      const events = eventForwarder(extra, request.params._meta?.progressToken, name);
      const result = await host.call(name, args ?? {}, {
        source: 'mcp',
        sessionId,
        signal: extra.signal,
        onEvent: events.forward,
        ...(confirm ? { confirm } : {}),
        ...traceContextOf(request.params._meta),
      });
      // Notifications sent after the response would be dropped by the client.
      await events.flush();
      return toCallToolResult(result);
    },
  );

  const unsubscribe = registry.onChange(() => {
    server.sendToolListChanged().catch(() => {
      // Not connected yet, or the client went away: nothing to tell.
    });
  });
  return { server, dispose: unsubscribe };
}

/** The W3C trace context a client sent in a request's `_meta`, if any. */
function traceContextOf(meta: Record<string, unknown> | undefined): {
  traceContext?: { traceparent: string; tracestate?: string };
} {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string') return {};
  const tracestate = meta?.tracestate;
  return {
    traceContext: { traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) },
  };
}

/** Forwards tool events: progress to `notifications/progress`, output to logging messages. */
function eventForwarder(
  extra: Extra,
  progressToken: string | number | undefined,
  toolId: string,
): { forward: (event: ToolEvent) => void; flush: () => Promise<void> } {
  let lastProgress = 0;
  const pending = new Set<Promise<void>>();
  const send = (notification: ServerNotification) => {
    const sent = extra.sendNotification(notification).catch(() => {});
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
  };
  const forward = (event: ToolEvent) => {
    if (event.type === 'progress') {
      if (progressToken === undefined) return;
      // Progress must increase with every notification.
      lastProgress = Math.max(lastProgress + 1e-6, event.progress);
      send({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress: lastProgress,
          ...(event.total !== undefined ? { total: event.total } : {}),
          ...(event.message !== undefined ? { message: event.message } : {}),
        },
      });
      return;
    }
    send({
      method: 'notifications/message',
      params: {
        level: event.stream === 'stderr' ? 'warning' : 'info',
        logger: toolId,
        data: event.text,
      },
    });
  };
  return {
    forward,
    flush: async () => {
      await Promise.allSettled([...pending]);
    },
  };
}

/** Asks the client's user through a form elicitation tied to the tool call. */
function elicitingConfirm(extra: Extra): ConfirmFunction {
  return async (request, signal) => {
    const reason = request.reason ? `\n${request.reason}` : '';
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: `${request.toolId} (${request.risk} risk) wants to run:\n${request.action}${reason}`,
          requestedSchema: {
            type: 'object',
            properties: {
              decision: {
                type: 'string',
                title: 'Allow this call?',
                description:
                  'allow_once: this call only; allow_session: until the session ends; allow_always: from now on; deny: refuse.',
                enum: [...DECISIONS],
                default: 'deny',
              },
            },
            required: ['decision'],
          },
        },
      },
      ElicitResultSchema,
      {
        timeout: CONFIRMATION_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      },
    );
    if (answer.action !== 'accept') return 'deny';
    const decision = answer.content?.decision;
    return DECISIONS.includes(decision as ConfirmationDecision)
      ? (decision as ConfirmationDecision)
      : 'deny';
  };
}
