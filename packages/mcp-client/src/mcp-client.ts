import {
  type CallToolResult,
  Client,
  type ElicitRequestFormParams,
  type ElicitResult,
  type ListToolsResult,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { BoundedLog, type BoundedLogOptions } from './bounded-log.js';
import type { RemoteToolRef } from './call-result.js';
import {
  describeGarbage,
  isFallbackWorthy,
  isParseError,
  tasksRequired,
} from './connection-failures.js';
import { DirectToolCalls } from './direct-tool-calls.js';
import { toMcpToolError } from './mcp-call-error.js';
import type { McpHttpServerConfig, McpServerConfig } from './mcp-server-config.js';
import { sseTransport, stdioTransport, streamableTransport } from './mcp-transports.js';
import { modernDirectEra } from './modern-direct-era.js';
import { fromAuthError } from './oauth/oauth-errors.js';
import type { McpOAuthProvider } from './oauth/oauth-provider.js';
import {
  INPUT_REQUIRED_MAX_ROUNDS,
  type McpEra,
  negotiationFor,
  probeKilledServer,
} from './protocol-era.js';
import { sdkCallOptions } from './sdk-call-options.js';
import { HandshakeDeadline, SignalRelay } from './signal-relay.js';

/** The transport a connected client ended up using. */
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

/** Options for {@link McpClient}. */
export interface McpClientOptions {
  /** Name and version announced to servers. Default `toolsys` / `0.1.0`. */
  clientInfo?: { name: string; version: string };
  /** Bounds of the kept stderr of a stdio server. Default 64 KiB. */
  stderrLog?: BoundedLogOptions;
  /**
   * Whether `tools/call` on a stdio connection is sent directly on the transport (see
   * {@link DirectToolCalls}) rather than through the SDK client's request path. Same protocol
   * behaviour, a few microseconds less per call. Default true; set false to use the SDK's path.
   */
  directToolCalls?: boolean;
  /**
   * Answers the forms a server asks the user to fill in (elicitation, form mode; in the 2026-07-28
   * era embedded in `input_required` results, in the 2025 era as server requests). Fields the
   * answer leaves out get the defaults of the form's schema. Without it the client declares no
   * elicitation, and a server that asks anyway is refused (`UNSUPPORTED`). A URL-mode request is
   * always declined.
   */
  onElicitation?: (request: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;
  /**
   * The OAuth client of an HTTP server (see {@link McpOAuthProvider}), made once per
   * connection; undefined for a server reached without OAuth.
   */
  oauth?: (config: McpHttpServerConfig) => McpOAuthProvider | undefined;
}

/** Per-request options of {@link McpClient}. */
export interface McpRequestOptions {
  /**
   * Cancels the request; the server is told (`notifications/cancelled`, or on a 2026-07-28
   * Streamable HTTP connection, the request's stream is closed).
   */
  signal?: AbortSignal;
  /**
   * Time limit in ms for the whole request (every round of a multi-round-trip call, and the era
   * probe and handshake of a connection); on expiry the request is cancelled as by `signal`.
   * Default 30 000.
   */
  timeoutMs?: number;
}

/** Options of {@link McpClient.callTool}. */
export interface McpCallOptions extends McpRequestOptions {
  /** Receives the server's progress notifications. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Bounds of one tool listing (see {@link McpClient.listToolPages}). */
export const TOOL_LISTING_LIMITS = {
  /** Pages fetched at most; an empty page with a next cursor counts. */
  maxPages: 50,
  /** Tools kept at most. */
  maxTools: 10_000,
} as const;

/** One bounded tool listing. */
export interface ToolListing {
  /** The tools, in the server's order. */
  readonly tools: Tool[];
  /** Pages fetched. */
  readonly pages: number;
  /** What was cut, when the listing hit a bound; absent when it ended by itself. */
  readonly truncated?: string;
}

/** The `convert` of a plain `callTool`: the result as the server sent it (internal). */
export function asIs(result: CallToolResult): CallToolResult {
  return result;
}

/**
 * One connection to one MCP server over stdio, Streamable HTTP or HTTP+SSE, in either protocol
 * era: 2025-11-25 (the `initialize` handshake, sessions) or 2026-07-28 (stateless:
 * `server/discover`, the `_meta` envelope on every request, multi-round-trip results), chosen by
 * the server's `protocolVersion` setting (`auto` by default). Errors leave it as
 * {@link ToolError}s with codes (TIMEOUT, EXECUTION_FAILED, INVALID_ARGUMENT …). A client
 * connects once; after it closes, make a new one (the {@link McpManager} does).
 */
export class McpClient {
  /** The server this client talks to. */
  readonly config: McpServerConfig;
  /** The server's stderr (stdio only), bounded. */
  readonly stderr: BoundedLog;
  readonly #clientInfo: { name: string; version: string };
  readonly #closeListeners = new Set<() => void>();
  readonly #toolsChangedListeners = new Set<() => void>();
  readonly #directToolCalls: boolean;
  readonly #onElicitation: McpClientOptions['onElicitation'];
  readonly #oauth: McpOAuthProvider | undefined;
  /** Sends tools/call itself (stdio in the 2025 era, unless switched off). */
  #direct: DirectToolCalls | undefined;
  /** Tools whose calls stay with the SDK client: an outputSchema to check. */
  readonly #sdkCalledTools = new Set<string>();
  /** The last listing by name: the SDK checks output schemas and mirrors headers from it. */
  #listed = new Map<string, Tool>();
  #client: Client | undefined;
  #transport: Transport | undefined;
  #kind: McpTransportKind | undefined;
  #connected = false;
  #closed = false;
  #garbage: string | undefined;

  constructor(config: McpServerConfig, options: McpClientOptions = {}) {
    this.config = config;
    this.stderr = new BoundedLog(options.stderrLog);
    this.#clientInfo = options.clientInfo ?? { name: 'toolsys', version: '0.1.0' };
    this.#directToolCalls = options.directToolCalls ?? true;
    this.#onElicitation = options.onElicitation;
    this.#oauth = config.transport === 'stdio' ? undefined : options.oauth?.(config);
  }

  /** Whether the connection is up. */
  get isConnected(): boolean {
    return this.#connected;
  }

  /** The transport in use once connected. */
  get transportKind(): McpTransportKind | undefined {
    return this.#kind;
  }

  /**
   * The protocol era of the live connection: `legacy` (2025, `initialize` handshake) or `modern`
   * (2026-07-28 and later, stateless).
   */
  get era(): McpEra | undefined {
    return this.#connected ? this.#client?.getProtocolEra() : undefined;
  }

  /** The protocol revision the live connection speaks, e.g. `2025-11-25` or `2026-07-28`. */
  get protocolVersion(): string | undefined {
    return this.#connected ? this.#client?.getNegotiatedProtocolVersion() : undefined;
  }

  /** Process id of a stdio server while it runs. */
  get pid(): number | undefined {
    return this.#kind === 'stdio'
      ? ((this.#transport as { pid?: number | null } | undefined)?.pid ?? undefined)
      : undefined;
  }

  /**
   * The underlying MCP SDK client while connected: an escape hatch for what the tools do not wrap
   * (resources, prompts, completions). Requests made on it bypass this class's error mapping.
   */
  get sdkClient(): Client | undefined {
    return this.#connected ? this.#client : undefined;
  }

  /** Name and version the server announced (a 2026-07-28 server may announce none). */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.#client?.getServerVersion();
    return info ? { name: String(info.name), version: String(info.version) } : undefined;
  }

  /** Calls `listener` once when the connection closes (the process exits, the session ends). */
  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** Calls `listener` when the server announces `notifications/tools/list_changed` (debounced). */
  onToolsChanged(listener: () => void): () => void {
    this.#toolsChangedListeners.add(listener);
    return () => this.#toolsChangedListeners.delete(listener);
  }

  /**
   * Starts the server (stdio) or contacts it (HTTP) and settles the protocol: the era probe
   * (`server/discover`) and, for a 2025-era server, the `initialize` handshake, all within
   * `timeoutMs`.
   */
  async connect(options: McpRequestOptions = {}): Promise<void> {
    if (this.#client) throw new Error('McpClient.connect may be called once; create a new client');
    const { config } = this;
    if (config.transport === 'stdio') {
      const transport = () => stdioTransport(config, this.stderr);
      try {
        await this.#connectWith(transport, 'stdio', options);
      } catch (error) {
        // A 2025-era server that exits on the era probe: start it again and shake hands.
        if (!probeKilledServer(error, config, this.#garbage, options.signal)) throw error;
        this.#reset();
        await this.#connectWith(transport, 'stdio', options, 'legacy');
      }
      return;
    }
    const oauth = this.#oauth;
    if (config.transport === 'sse') {
      await this.#signedIn(() =>
        this.#connectWith(() => sseTransport(config, oauth), 'sse', options),
      );
      return;
    }
    try {
      await this.#signedIn(() =>
        this.#connectWith(() => streamableTransport(config, oauth), 'streamable-http', options),
      );
    } catch (error) {
      if (
        config.transport !== 'http' ||
        config.protocolVersion === '2026-07-28' ||
        options.signal?.aborted ||
        !isFallbackWorthy(error)
      ) {
        throw error;
      }
      this.#reset();
      await this.#connectWith(() => sseTransport(config, oauth), 'sse', options);
    }
  }

  /**
   * Runs `attempt` once more when it failed because the server asked for a sign-in that then
   * completed (the SDK reports the request unauthorized even so).
   */
  async #signedIn<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (error) {
      if (!this.#oauth?.takeFreshAuthorization()) throw error;
      if (!this.#connected) this.#reset();
      return attempt();
    }
  }

  /** The server's tools, all pages (within {@link TOOL_LISTING_LIMITS}; see {@link listToolPages}). */
  async listTools(options: McpRequestOptions = {}): Promise<Tool[]> {
    return (await this.listToolPages(options)).tools;
  }

  /**
   * The server's tools, page by page, within bounds: at most {@link TOOL_LISTING_LIMITS}`.maxPages`
   * pages (an empty page with a next cursor counts) and `.maxTools` tools, a cursor seen before
   * ends the listing, and the whole listing shares one time limit. `truncated` says what was cut.
   */
  listToolPages(options: McpRequestOptions = {}): Promise<ToolListing> {
    return this.#signedIn(() => this.#listToolPages(options));
  }

  async #listToolPages(options: McpRequestOptions): Promise<ToolListing> {
    const client = this.#require();
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = performance.now() + timeoutMs;
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let truncated: string | undefined;
    const relay = SignalRelay.of(options.signal);
    try {
      do {
        const remaining = Math.max(1, deadline - performance.now());
        const page = await listPage(client, cursor, { timeout: remaining, ...relay?.options });
        pages += 1;
        const room = TOOL_LISTING_LIMITS.maxTools - tools.length;
        if (page.tools.length > room) {
          tools.push(...page.tools.slice(0, room));
          truncated = `the server listed more than ${TOOL_LISTING_LIMITS.maxTools} tools; the first ${TOOL_LISTING_LIMITS.maxTools} are kept`;
          break;
        }
        tools.push(...page.tools);
        cursor = page.nextCursor;
        if (cursor === undefined) break;
        if (seen.has(cursor)) {
          truncated = `the server repeated a page cursor after ${pages} page(s); the listing was ended there`;
          break;
        }
        seen.add(cursor);
        if (pages >= TOOL_LISTING_LIMITS.maxPages) {
          truncated = `the server offered more than ${TOOL_LISTING_LIMITS.maxPages} pages; the listing was ended there`;
          break;
        }
      } while (cursor !== undefined);
    } catch (error) {
      throw this.#failure(error, 'tools/list', timeoutMs, options.signal);
    } finally {
      relay?.release();
    }
    this.#sdkCalledTools.clear();
    this.#listed = new Map();
    for (const tool of tools) {
      if (!this.#listed.has(tool.name)) this.#listed.set(tool.name, tool);
      if (tool.outputSchema !== undefined) this.#sdkCalledTools.add(tool.name);
    }
    return truncated === undefined ? { tools, pages } : { tools, pages, truncated };
  }

  /** Calls a tool. A timeout or an abort cancels the request on the server. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<CallToolResult> {
    return this.callToolWith(name, args, asIs, options);
  }

  /**
   * {@link callTool} with the result handed to `convert` (with the server and tool it came from)
   * in the same step as the answer: one turn of the job queue less per call than awaiting
   * `callTool` and converting after. `convert` runs only on a result; what it throws is passed on
   * unchanged. On a stdio connection (either era) the request goes out directly on the transport
   * ({@link DirectToolCalls}), except for tools the SDK must check (an `outputSchema`); a
   * 2026-07-28 result that asks for input continues through the SDK client's multi-round-trip
   * path. A tool that requires tasks is refused (UNSUPPORTED) without a request; everything else
   * (every call over HTTP) goes through the SDK client.
   */
  callToolWith<T>(
    name: string,
    args: Record<string, unknown>,
    convert: (result: CallToolResult, ref: RemoteToolRef) => T,
    options: McpCallOptions = {},
  ): Promise<T> {
    if (this.#listed.get(name)?.execution?.taskSupport === 'required') {
      return Promise.reject(tasksRequired(this.config.name, name));
    }
    const direct = this.#direct;
    if (direct && this.#connected && !this.#sdkCalledTools.has(name)) {
      return direct.call(
        name,
        args,
        convert,
        { server: this.config.name, tool: name },
        {
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          signal: options.signal,
          onProgress: options.onProgress,
        },
      );
    }
    return this.#signedIn(() => this.#callThroughSdk(name, args, convert, options));
  }

  /** {@link callToolWith} through the SDK client's own request path. */
  async #callThroughSdk<T>(
    name: string,
    args: Record<string, unknown>,
    convert: (result: CallToolResult, ref: RemoteToolRef) => T,
    options: McpCallOptions,
  ): Promise<T> {
    const client = this.#require();
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { signal } = options;
    const call = sdkCallOptions(timeoutMs, signal, options.onProgress);
    const listed = this.#listed.get(name);
    if (listed) call.options.toolDefinition = listed;
    let result: CallToolResult;
    try {
      result = await client.callTool({ name, arguments: args }, call.options);
    } catch (error) {
      throw this.#failure(error, `tools/call "${name}"`, timeoutMs, signal);
    } finally {
      call.release();
    }
    return convert(result, { server: this.config.name, tool: name });
  }

  /** Checks the server answers. */
  async ping(options: McpRequestOptions = {}): Promise<void> {
    const client = this.#require();
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const relay = SignalRelay.of(options.signal);
    try {
      await client.ping({ timeout: timeoutMs, ...relay?.options });
    } catch (error) {
      throw this.#failure(error, 'ping', timeoutMs, options.signal);
    } finally {
      relay?.release();
    }
  }

  /** Closes the connection; a stdio server is stopped (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    const client = this.#client;
    if (!client) {
      this.#markClosed();
      return;
    }
    if (this.#kind === 'streamable-http') {
      const transport = this.#transport as { terminateSession?: () => Promise<void> } | undefined;
      await transport?.terminateSession?.().catch(() => undefined);
    }
    await client.close().catch(() => undefined);
    this.#markClosed();
  }

  /** Forgets a failed attempt so that another can be made. */
  #reset(): void {
    this.#client = undefined;
    this.#transport = undefined;
    this.#closed = false;
  }

  async #connectWith(
    makeTransport: () => Transport | Promise<Transport>,
    kind: McpTransportKind,
    options: McpRequestOptions,
    force?: 'legacy',
  ): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Settled before anything starts: a setting that cannot work fails without a process.
    const versionNegotiation = negotiationFor(this.config, kind, timeoutMs, force);
    const transport = await makeTransport();
    const onElicitation = this.#onElicitation;
    const client = new Client(this.#clientInfo, {
      capabilities: onElicitation ? { elicitation: { form: { applyDefaults: true } } } : {},
      versionNegotiation,
      // Only forms are answered (with onElicitation), never sampling or roots; a server that keeps
      // returning input_required is cut off after these rounds.
      inputRequired: { maxRounds: INPUT_REQUIRED_MAX_ROUNDS },
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 100,
          onChanged: () => {
            for (const listener of this.#toolsChangedListeners) {
              try {
                listener();
              } catch {
                // A listener's failure must not break the connection.
              }
            }
          },
        },
      },
    });
    if (onElicitation) {
      client.setRequestHandler('elicitation/create', (request, context) =>
        request.params.mode === 'url'
          ? Promise.resolve({ action: 'decline' as const })
          : onElicitation(request.params, context.mcpReq.signal),
      );
    }
    this.#client = client;
    this.#transport = transport;
    this.#kind = kind;
    // A direct path belongs to one connection: a new one decides afresh.
    this.#direct = undefined;
    const handshake = new HandshakeDeadline(options.signal, timeoutMs);
    transport.onerror = (error) => {
      if (kind === 'stdio' && this.#garbage === undefined && isParseError(error)) {
        this.#garbage = describeGarbage(error);
        // A server that writes garbage never completes a handshake: fail now, not at the timeout
        // (closing also ends an era probe, which no signal reaches).
        if (!this.#connected) {
          handshake.abort(error);
          void transport.close().catch(() => undefined);
        }
      }
    };
    transport.onclose = () => {
      // A transport abandoned for the SSE fallback may report its close late: ignore it.
      if (this.#transport === transport) this.#markClosed();
    };
    try {
      await client.connect(transport, {
        timeout: timeoutMs,
        signal: handshake.signal,
        ...(force === 'legacy' ? { prior: { kind: 'legacy' as const } } : {}),
      });
      if (kind === 'stdio' && this.#directToolCalls) {
        // On 2026-07-28 only with the SDK's own envelope and result checks at hand.
        const era = client.getProtocolEra() === 'legacy' ? null : modernDirectEra(client);
        if (era !== undefined) {
          this.#direct = new DirectToolCalls(
            transport,
            (error, call) =>
              this.#failure(error, `tools/call "${call.name}"`, call.timeoutMs, call.signal),
            era ?? undefined,
          );
        }
      }
      this.#connected = true;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw this.#failure(handshake.explain(error), 'initialize', timeoutMs, options.signal);
    } finally {
      handshake.release();
    }
  }

  #require(): Client {
    if (!this.#client || !this.#connected) {
      throw toMcpToolError(new Error('not connected'), {
        server: this.config.name,
        operation: 'a request',
      });
    }
    return this.#client;
  }

  #failure(error: unknown, operation: string, timeoutMs: number, signal?: AbortSignal): unknown {
    // The caller's own cancellation is not a server failure: the executor reports it as cancelled.
    if (signal?.aborted) return error;
    const auth = fromAuthError(this.config.name, error);
    if (auth) return auth;
    return toMcpToolError(error, {
      server: this.config.name,
      operation,
      timeoutMs,
      ...(this.#garbage === undefined ? {} : { garbage: this.#garbage }),
    });
  }

  #markClosed(): void {
    this.#connected = false;
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#closeListeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not break closing.
      }
    }
  }
}

/**
 * One page of `tools/list`, the first one included: the SDK's own `listTools()` without a cursor
 * walks every page itself, with none of the bounds {@link McpClient.listToolPages} keeps. Every
 * page goes through the SDK's check of 2026-07-28 `x-mcp-header` declarations, which leaves out
 * a tool whose declarations could not be sent as HTTP headers (as the SDK does on its own pages).
 */
async function listPage(
  client: Client,
  cursor: string | undefined,
  options: { timeout: number; signal?: AbortSignal },
): Promise<ListToolsResult> {
  if (cursor !== undefined) return client.listTools({ cursor }, options);
  const page = await client.request({ method: 'tools/list', params: {} }, options);
  const result = { ...page, tools: Array.isArray(page.tools) ? [...page.tools] : [] };
  (client as unknown as HeaderCheck)._excludeInvalidXMcpHeaderTools(result);
  return result;
}

/** The SDK client's check of `x-mcp-header` declarations (applied to its own listings). */
interface HeaderCheck {
  _excludeInvalidXMcpHeaderTools(result: ListToolsResult): void;
}
