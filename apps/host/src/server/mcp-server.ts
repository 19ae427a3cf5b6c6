import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ElicitResultSchema,
  type JSONRPCMessage,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ConfirmationDecision, ConfirmFunction, ToolEvent } from '@toolsys/core-tool-registry';
import { confirmationLines } from '../confirmation-text.js';
import { isDiscoveryTool } from '../deployment.js';
import { newSessionId } from '../session-policy.js';
import { HOST_VERSION } from '../version.js';
import { artifactContent } from './artifact-content.js';
import { readArtifactResource } from './artifact-resource.js';
import { ListedNames } from './listed-names.js';
import { TOOLSYS_META_KEY, toCallToolResult, toMcpTool } from './mcp-tool-mapping.js';
import { LOCAL_PRINCIPAL, type Principal, principalKey } from './principal.js';
import { RecentArtifacts } from './recent-artifacts.js';
import type { ToolHost } from './tool-host.js';

export { HOST_VERSION } from '../version.js';

/** The server name announced to MCP clients. */
export const MCP_SERVER_NAME = 'toolsys';

/** The session id tools see for a call made in the MCP session `transportSessionId`. */
export function mcpSessionId(transportSessionId: string): string {
  return `mcp-${transportSessionId}`;
}

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
   * The session id tools see and permission answers are remembered under when the transport has
   * none (stdio). Default: a fresh random id for this server (`mcp-<uuid>`).
   */
  sessionId?: string;
  /** Who is calling through this server: every call carries it. Default `local`. */
  principal?: Principal;
}

/** An MCP server over a {@link ToolHost}, and how to stop listening to the registry. */
export interface ToolsysMcpServer {
  readonly server: Server;
  /**
   * Connects the server to a transport. Use this rather than `server.connect`: it also lets
   * `tools/call` requests whose arguments are not an object reach the executor, which answers
   * them with an INVALID_ARGUMENT result instead of the SDK's JSON-RPC error.
   */
  connect(transport: Transport): Promise<void>;
  /** Stops forwarding registry changes; call when the connection ends. */
  dispose(): void;
}

/** Arguments set aside per connection at most; older ones are dropped first. */
const MAX_SET_ASIDE = 1_000;

/** Artifacts `resources/list` shows per connection at most, newest first. */
const MAX_LISTED_ARTIFACTS = 100;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Builds an MCP server exposing every tool of the host's registry: input JSON Schema,
 * annotations as MCP hints, output schema and structured content where the tool returns an
 * object. Calls run through the executor; progress becomes `notifications/progress`, streamed
 * output becomes logging messages; a client's cancellation aborts the handler; confirmations go
 * to the user through elicitation when the client supports it. `tools/list_changed` is sent
 * when the registry changes. A result's artifacts become `resource_link` blocks (and small images
 * inline `image` blocks); `resources/read` serves them and `resources/list` lists the ones this
 * connection was sent.
 */
export function createMcpServer(host: ToolHost, options: McpServerOptions = {}): ToolsysMcpServer {
  const { registry } = host.deployment;
  const ownSessionId = options.sessionId ?? newSessionId('mcp');
  const server = new Server(
    { name: MCP_SERVER_NAME, version: HOST_VERSION },
    {
      capabilities: { tools: { listChanged: true }, resources: {}, logging: {} },
      instructions:
        'Toolsys tools. Failed calls return text starting with "Error: [CODE]" and a "Next:" line saying what to do.',
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
    },
  );

  // The level a client sets with `logging/setLevel` filters the output sent as logging messages
  // (one server serves one connection, so one level).
  const logLevel = new LogLevelFilter();
  server.removeRequestHandler(SetLevelRequestSchema.shape.method.value);
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel.set(request.params.level);
    return {};
  });

  // `discover` mode lists only the meta tools; `all` lists every tool but those (they would only
  // repeat what is listed), while both modes accept a call of any registered tool. Tools are
  // listed under names every client accepts (unless `tools.names` is "ids"); the output schemas
  // and `_meta` facts go only to a client that announced the experimental `dev.toolsys/tool`.
  const discover = host.deployment.toolMode === 'discover';
  const names = new ListedNames(host.deployment.config.config.tools?.names ?? 'safe', () =>
    registry.ids(),
  );
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const full = server.getClientCapabilities()?.experimental?.[TOOLSYS_META_KEY] !== undefined;
    return {
      tools: registry
        .list()
        .filter((tool) => isDiscoveryTool(tool.id) === discover)
        .map((tool) =>
          toMcpTool(tool, {
            name: names.nameOf(tool.id),
            describe: (text) => names.inText(text),
            full,
          }),
        ),
    };
  });

  const { dataDir } = host.deployment.config;
  const principal = options.principal ?? LOCAL_PRINCIPAL;
  const owner = principalKey(principal);
  const listed = new RecentArtifacts(MAX_LISTED_ARTIFACTS);
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: listed.list().map(({ uri, name, mimeType, description, size }) => ({
      uri,
      name,
      mimeType,
      ...(description !== undefined ? { description } : {}),
      size,
    })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    readArtifactResource(request.params.uri, { dataDir, linked: host.artifacts, owner }),
  );

  // tools/call requests whose `arguments` the SDK's schema would refuse (an array, a string, a
  // number …), by request id: the SDK would answer them with a JSON-RPC error holding a raw
  // validation dump; the executor answers with a tool error the model can act on.
  const setAside = new Map<RequestId, unknown>();

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const name = names.idOf(request.params.name);
      const args = setAside.has(extra.requestId)
        ? setAside.get(extra.requestId)
        : request.params.arguments;
      setAside.delete(extra.requestId);
      const sessionId = extra.sessionId ? mcpSessionId(extra.sessionId) : ownSessionId;
      const confirm = server.getClientCapabilities()?.elicitation
        ? elicitingConfirm(extra)
        : undefined;
      const events = eventForwarder(extra, request.params._meta?.progressToken, name, (level) =>
        logLevel.ignores(level),
      );
      const clientName = server.getClientVersion()?.name;
      const result = await host.call(name, args ?? {}, {
        source: 'mcp',
        ...(clientName !== undefined ? { clientName } : {}),
        sessionId,
        principal,
        signal: extra.signal,
        onEvent: events.forward,
        ...(confirm ? { confirm } : {}),
        ...traceContextOf(request.params._meta),
      });
      // Notifications sent after the response would be dropped by the client.
      await events.flush();
      const tool = registry.get(name);
      const data = server.getClientCapabilities()?.experimental?.[TOOLSYS_META_KEY] !== undefined;
      if (!result.ok || result.artifacts === undefined) {
        return toCallToolResult(result, { ...(tool ? { tool } : {}), data });
      }
      const artifacts = await artifactContent(result.artifacts, {
        dataDir,
        owner,
        onUnlinked: (artifact, reason) =>
          host.warn(`${name} returned the artifact ${artifact.path}, not linked: ${reason}`),
      });
      for (const linked of artifacts.linked) {
        host.artifacts.add(linked);
        listed.add(linked);
      }
      return toCallToolResult(result, {
        ...(tool ? { tool } : {}),
        data,
        artifactBlocks: artifacts.content,
      });
    },
  );

  const unsubscribe = registry.onChange(() => {
    names.reset();
    server.sendToolListChanged().catch(() => {
      // Not connected yet, or the client went away: nothing to tell.
    });
  });
  const connect = async (transport: Transport) => {
    const start = transport.start.bind(transport);
    // Server.connect sets onmessage and then starts the transport: wrap it before any message.
    transport.start = async () => {
      const deliver = transport.onmessage;
      transport.onmessage = (message, extra) => {
        deliver?.(setAsideBadArguments(message, setAside), extra);
      };
      await start();
    };
    await server.connect(transport);
  };
  return { server, connect, dispose: unsubscribe };
}

/**
 * Takes the arguments of a `tools/call` request out when they are not a JSON object, keeping
 * them under the request id for the handler, so that the request passes the SDK's validation.
 */
function setAsideBadArguments(
  message: JSONRPCMessage,
  setAside: Map<RequestId, unknown>,
): JSONRPCMessage {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) {
    return message;
  }
  const params = message.params;
  if (typeof params !== 'object' || params === null || !('arguments' in params)) return message;
  const args: unknown = params.arguments;
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) return message;
  if (setAside.size >= MAX_SET_ASIDE) {
    const oldest = setAside.keys().next();
    if (!oldest.done) setAside.delete(oldest.value);
  }
  setAside.set(message.id, args);
  const { arguments: _dropped, ...rest } = params;
  return { ...message, params: rest };
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

/** The least severe logging level a client still wants, by `logging/setLevel`. */
class LogLevelFilter {
  #minimum = 0;

  set(level: LoggingLevel): void {
    this.#minimum = LoggingLevelSchema.options.indexOf(level);
  }

  /** Whether a message at `level` is below what the client asked for. */
  ignores(level: LoggingLevel): boolean {
    return LoggingLevelSchema.options.indexOf(level) < this.#minimum;
  }
}

/**
 * Forwards tool events: progress to `notifications/progress`, output to logging messages at or
 * above the level the client set with `logging/setLevel` (`ignored` says which are below it).
 */
function eventForwarder(
  extra: Extra,
  progressToken: string | number | undefined,
  toolId: string,
  ignored: (level: LoggingLevel) => boolean,
): { forward: (event: ToolEvent) => void; flush: () => Promise<void> } {
  let lastProgress: number | undefined;
  const pending = new Set<Promise<void>>();
  const send = (notification: ServerNotification) => {
    const sent = extra.sendNotification(notification).catch(() => {});
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
  };
  const forward = (event: ToolEvent) => {
    if (event.type === 'progress') {
      if (progressToken === undefined) return;
      // Progress must increase with every notification: one that does not is not sent.
      if (lastProgress !== undefined && event.progress <= lastProgress) return;
      lastProgress = event.progress;
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
    const level: LoggingLevel = event.stream === 'stderr' ? 'warning' : 'info';
    if (ignored(level)) return;
    send({
      method: 'notifications/message',
      params: {
        level,
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
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          // The request arrives escaped (the deployment's confirm escapes every question).
          message: confirmationLines(request).join('\n'),
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
