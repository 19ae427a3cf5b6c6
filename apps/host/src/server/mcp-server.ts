import type {
  CallToolResult,
  JSONRPCMessage,
  Server,
  ServerContext,
  Transport,
} from '@modelcontextprotocol/server';
import { isDiscoveryTool } from '../deployment.js';
import { newSessionId } from '../session-policy.js';
import { HOST_VERSION } from '../version.js';
import { requestStateVerifier } from './input-rounds.js';
import { ListedNames } from './listed-names.js';
import { TOOLSYS_META_KEY, toMcpTool } from './mcp-tool-mapping.js';
import { registerOfferingHandlers } from './offering-handlers.js';
import { LOCAL_PRINCIPAL, type Principal, principalKey } from './principal.js';
import { type ProtocolEra, statelessSessionId } from './protocol-era.js';
import { RecentArtifacts } from './recent-artifacts.js';
import { TaskAwareServer } from './task-aware-server.js';
import { TASKS_EXTENSION } from './task-calls.js';
import { registerTaskHandlers, taskStatusNotifier } from './task-handlers.js';
import { handleToolCall, RAW_ARGUMENTS_META_KEY, type ToolCallSetup } from './tool-call-handler.js';
import type { ToolHost } from './tool-host.js';

export { HOST_VERSION } from '../version.js';

/** The server name announced to MCP clients. */
export const MCP_SERVER_NAME = 'toolsys';

/** The session id tools see for a call made in the MCP session `transportSessionId`. */
export function mcpSessionId(transportSessionId: string): string {
  return `mcp-${transportSessionId}`;
}

/** How long a 2026-07-28 client may cache `tools/list` and the other lists (ms). */
export const LIST_TTL_MS = 60_000;

/** Options for {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * The session id tools see and permission answers are remembered under when the transport has
   * none (stdio). Default: a fresh random id for this server (`mcp-<uuid>`).
   */
  sessionId?: string;
  /** Who is calling through this server: every call carries it. Default `local`. */
  principal?: Principal;
  /** The protocol era this server serves. Default `legacy`. */
  era?: ProtocolEra;
  /**
   * Whether the server sends list-changed notifications for its connection (on a 2026-07-28
   * stdio connection the SDK routes them to `subscriptions/listen`). Default: only in the legacy
   * era, since a 2026-07-28 HTTP server lives for one request.
   */
  forwardChanges?: boolean;
  /**
   * The names the caller's tools are listed under, when the caller keeps them across servers (a
   * 2026-07-28 HTTP server lives for one request). Default: this server's own.
   */
  names?: ListedNames;
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

/** Artifacts `resources/list` shows per connection at most, newest first. */
const MAX_LISTED_ARTIFACTS = 100;

const INSTRUCTIONS =
  'Toolsys tools. Failed calls return text starting with "Error: [CODE]" and a "Next:" line saying what to do.';

/**
 * Builds an MCP server (one per 2025-11-25 connection, one per 2026-07-28 request) exposing every
 * tool of the host's registry: input JSON Schema, annotations as MCP hints, output schema and
 * structured content where the tool returns an object. Calls run through the executor; progress
 * becomes `notifications/progress`, streamed output logging messages; a client's cancellation
 * aborts the handler. Confirmations and input requests go to the client as the era has it (see
 * {@link handleToolCall}). The deployment's offerings (prompts, resources, templates, completion,
 * subscriptions) and the artifacts linked in results are served beside the tools.
 */
export function createMcpServer(host: ToolHost, options: McpServerOptions = {}): ToolsysMcpServer {
  const { registry, offerings } = host.deployment;
  const era = options.era ?? 'legacy';
  const principal = options.principal ?? LOCAL_PRINCIPAL;
  const ownSessionId =
    options.sessionId ?? (era === 'modern' ? statelessSessionId(principal) : newSessionId('mcp'));
  const server = new TaskAwareServer(
    { name: MCP_SERVER_NAME, version: HOST_VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
        // MCP Tasks: the 2025-11-25 methods, or the 2026-07-28 extension.
        ...(era === 'legacy'
          ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
          : { extensions: { [TASKS_EXTENSION]: {} } }),
      },
      instructions: INSTRUCTIONS,
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
      cacheHints: {
        'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'prompts/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'resources/templates/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
      },
      requestState: {
        verify: requestStateVerifier(() => host.deployment.deploymentKey(), host.usedStateIds),
      },
    },
  );
  const client = () => ({
    capabilities: server.getClientCapabilities(),
    name: server.getClientVersion()?.name,
  });

  // `discover` mode lists only the meta tools; `all` lists every tool but those (they would only
  // repeat what is listed), while both modes accept a call of any registered tool. Tools are
  // listed under names every client accepts (unless `tools.names` is "ids"); the output schemas
  // and `_meta` facts go only to a client that announced the experimental `dev.toolsys/tool`.
  // A 2026-07-28 client gets them in a stable order (by listed name), so its cache holds.
  const discover = host.deployment.toolMode === 'discover';
  const names =
    options.names ??
    new ListedNames(host.deployment.config.config.tools?.names ?? 'safe', () =>
      registry.ids(principal),
    );
  server.setRequestHandler('tools/list', () => {
    const full = client().capabilities?.experimental?.[TOOLSYS_META_KEY] !== undefined;
    const tools = registry
      .list(principal)
      .filter((tool) => isDiscoveryTool(tool.id) === discover)
      .map((tool) =>
        toMcpTool(tool, {
          name: names.nameOf(tool.id),
          describe: (text) => names.inText(text),
          full,
        }),
      );
    if (era === 'modern') tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { tools };
  });

  const listed = new RecentArtifacts(MAX_LISTED_ARTIFACTS);
  const sessionOf = (ctx: ServerContext) =>
    ctx.sessionId ? mcpSessionId(ctx.sessionId) : ownSessionId;
  const dropSubscriptions = registerOfferingHandlers(server, {
    host,
    offerings,
    listed,
    caller: (ctx) => ({ principal, sessionId: sessionOf(ctx) }),
    input: {
      era,
      key: () => host.deployment.deploymentKey(),
      capabilities: () => client().capabilities,
    },
  });
  // A long-lived 2025-11-25 connection hears of its tasks' status changes.
  const forwardChanges = options.forwardChanges ?? era === 'legacy';
  const statusNotifier = taskStatusNotifier(server, { principal });
  const callSetup: ToolCallSetup = {
    host,
    era,
    names,
    principal,
    sessionId: sessionOf,
    listed,
    client,
    ...(forwardChanges && era === 'legacy' ? { onTaskStarted: statusNotifier.started } : {}),
  };
  // A call that became a task is answered with the task (its era's CreateTaskResult).
  server.setRequestHandler(
    'tools/call',
    (request, ctx) => handleToolCall(callSetup, request, ctx) as Promise<CallToolResult>,
  );
  registerTaskHandlers(server, callSetup);

  // A connection is told of changes on its own stream; a 2026-07-28 HTTP server lives for one
  // request (its clients hear of changes through `subscriptions/listen`, see modern-http).
  const stopRegistry = forwardChanges
    ? registry.onChange((change) => {
        // A tool only its definer sees changed nobody else's list.
        if (change.definedBy !== undefined && change.definedBy !== principalKey(principal)) return;
        names.reset();
        server.sendToolListChanged().catch(() => {});
      })
    : () => {};
  const stopOfferings = forwardChanges
    ? offerings.onListChanged((kind) => {
        const sent =
          kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
        sent.catch(() => {});
      })
    : () => {};
  const connect = async (transport: Transport) => {
    setAsideBadArgumentsOf(transport);
    await server.connect(transport);
  };
  const dispose = () => {
    stopRegistry();
    stopOfferings();
    dropSubscriptions();
    statusNotifier.stop();
  };
  return { server, connect, dispose };
}

/**
 * Makes `transport` move the arguments of a `tools/call` request that are not a JSON object (an
 * array, a string, a number …) into `_meta` before the SDK sees them: its schema would refuse
 * them with a JSON-RPC error holding a raw validation dump, while the executor answers with a
 * tool error the model can act on. Must run before the server connects (it wraps `start`).
 */
export function setAsideBadArgumentsOf(transport: Transport): void {
  const start = transport.start.bind(transport);
  // Server.connect sets onmessage and then starts the transport: wrap it before any message.
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      deliver?.(setAsideBadArguments(message), extra);
    };
    await start();
  };
}

/** The message with non-object `tools/call` arguments moved into `_meta` (see above). */
export function setAsideBadArguments<T extends JSONRPCMessage>(message: T): T {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) {
    return message;
  }
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null || !('arguments' in params)) return message;
  const { arguments: args, ...rest } = params as { arguments: unknown; _meta?: object };
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) return message;
  return {
    ...message,
    params: { ...rest, _meta: { ...(rest._meta ?? {}), [RAW_ARGUMENTS_META_KEY]: args } },
  };
}
