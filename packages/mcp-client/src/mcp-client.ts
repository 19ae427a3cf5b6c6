import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { isAttemptSignal } from '@toolsys/core-tool-registry';
import { boundedFetch } from './bounded-fetch.js';
import { BoundedLog, type BoundedLogOptions } from './bounded-log.js';
import type { RemoteToolRef } from './call-result.js';
import { DirectToolCalls } from './direct-tool-calls.js';
import { toMcpToolError } from './mcp-call-error.js';
import type { McpHttpServerConfig, McpServerConfig } from './mcp-server-config.js';
import { progressUpdate } from './progress-emitter.js';

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
}

/** Per-request options of {@link McpClient}. */
export interface McpRequestOptions {
  /** Cancels the request; the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Time limit in ms; on expiry the server is sent `notifications/cancelled`. Default 30 000. */
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
 * One connection to one MCP server over stdio, Streamable HTTP or HTTP+SSE. Errors leave it as
 * {@link ToolError}s with codes (TIMEOUT, EXECUTION_FAILED, INVALID_ARGUMENT …). A client connects
 * once; after it closes, make a new one (the {@link McpManager} does).
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
  /** Sends tools/call itself (stdio, unless switched off). */
  #direct: DirectToolCalls | undefined;
  /** Tools whose calls stay with the SDK client: an outputSchema to check, or tasks required. */
  readonly #sdkCalledTools = new Set<string>();
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
  }

  /** Whether the connection is up. */
  get isConnected(): boolean {
    return this.#connected;
  }

  /** The transport in use once connected. */
  get transportKind(): McpTransportKind | undefined {
    return this.#kind;
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

  /** Name and version the server announced. */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.#client?.getServerVersion();
    return info ? { name: info.name, version: info.version } : undefined;
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

  /** Starts the server (stdio) or opens the session (HTTP) and runs the MCP handshake. */
  async connect(options: McpRequestOptions = {}): Promise<void> {
    if (this.#client) throw new Error('McpClient.connect may be called once; create a new client');
    const { config } = this;
    if (config.transport === 'stdio') {
      await this.#connectWith(await this.#stdioTransport(config), 'stdio', options);
      return;
    }
    if (config.transport === 'sse') {
      await this.#connectWith(await this.#sseTransport(config), 'sse', options);
      return;
    }
    try {
      await this.#connectWith(await this.#streamableTransport(config), 'streamable-http', options);
    } catch (error) {
      if (config.transport !== 'http' || options.signal?.aborted || !isFallbackWorthy(error)) {
        throw error;
      }
      this.#client = undefined;
      this.#closed = false;
      await this.#connectWith(await this.#sseTransport(config), 'sse', options);
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
  async listToolPages(options: McpRequestOptions = {}): Promise<ToolListing> {
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
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: remaining,
          ...relay?.options,
        });
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
    for (const tool of tools) {
      if (tool.outputSchema !== undefined || tool.execution?.taskSupport === 'required') {
        this.#sdkCalledTools.add(tool.name);
      }
    }
    return truncated === undefined ? { tools, pages } : { tools, pages, truncated };
  }

  /** Calls a tool. A timeout or an abort sends `notifications/cancelled` to the server. */
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
   * unchanged. On stdio the request goes out directly on the transport ({@link DirectToolCalls}),
   * except for tools the SDK must check (an `outputSchema`) or that require tasks.
   */
  callToolWith<T>(
    name: string,
    args: Record<string, unknown>,
    convert: (result: CallToolResult, ref: RemoteToolRef) => T,
    options: McpCallOptions = {},
  ): Promise<T> {
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
    return this.#callThroughSdk(name, args, convert, options);
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
    const { signal, onProgress } = options;
    const requestOptions: RequestOptions = { timeout: timeoutMs };
    let relay: SignalRelay | undefined;
    if (signal) {
      // The SDK never removes its abort listener. A signal the executor made for this attempt
      // alone is dropped with it, so it goes to the SDK as is; any other (possibly long-lived)
      // signal goes through a relay that is detached after the request.
      if (isAttemptSignal(signal)) {
        requestOptions.signal = signal;
      } else {
        relay = new SignalRelay(signal);
        requestOptions.signal = relay.signal;
      }
    }
    if (onProgress) {
      // Only when asked: a progress token makes the server and the SDK do extra work.
      requestOptions.onprogress = (progress) => {
        const update = progressUpdate(progress);
        if (update) onProgress(update);
      };
    }
    let result: CallToolResult;
    try {
      result = (await client.callTool(
        { name, arguments: args },
        undefined,
        requestOptions,
      )) as CallToolResult;
    } catch (error) {
      throw this.#failure(error, `tools/call "${name}"`, timeoutMs, signal);
    } finally {
      relay?.release();
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

  async #connectWith(
    transport: Transport,
    kind: McpTransportKind,
    options: McpRequestOptions,
  ): Promise<void> {
    // The SDK client and each transport load on the first connection: importing this package
    // (and composing a deployment that never connects) loads none of them.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client(this.#clientInfo, {
      capabilities: {},
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
    this.#client = client;
    this.#transport = transport;
    this.#kind = kind;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const handshake = new SignalRelay(options.signal);
    transport.onerror = (error) => {
      if (kind === 'stdio' && this.#garbage === undefined && isParseError(error)) {
        this.#garbage = describeGarbage(error);
        // A server that writes garbage never completes a handshake: fail now, not at the timeout.
        if (!this.#connected) handshake.abort(error);
      }
    };
    transport.onclose = () => {
      // A transport abandoned for the SSE fallback may report its close late: ignore it.
      if (this.#transport === transport) this.#markClosed();
    };
    try {
      await client.connect(transport, { timeout: timeoutMs, signal: handshake.signal });
      if (kind === 'stdio' && this.#directToolCalls) {
        this.#direct = new DirectToolCalls(transport, (error, call) =>
          this.#failure(error, `tools/call "${call.name}"`, call.timeoutMs, call.signal),
        );
      }
      this.#connected = true;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw this.#failure(error, 'initialize', timeoutMs, options.signal);
    } finally {
      handshake.release();
    }
  }

  async #stdioTransport(
    config: Extract<McpServerConfig, { transport: 'stdio' }>,
  ): Promise<Transport> {
    const { BatchedStdioClientTransport } = await import('./batched-stdio-transport.js');
    const transport = new BatchedStdioClientTransport({
      command: config.command,
      args: [...(config.args ?? [])],
      env: { ...(config.env ?? {}) },
      stderr: 'pipe',
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    });
    transport.stderr?.on('data', (chunk: Buffer) => this.stderr.append(chunk));
    return transport;
  }

  async #streamableTransport(config: McpHttpServerConfig): Promise<Transport> {
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: httpHeaders(config) },
      // Answers are bounded while read, never buffered whole first.
      fetch: boundedFetch(),
      reconnectionOptions: {
        maxReconnectionDelay: 5_000,
        initialReconnectionDelay: 500,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    });
  }

  async #sseTransport(config: McpHttpServerConfig): Promise<Transport> {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    const headers = httpHeaders(config);
    const bounded = boundedFetch();
    return new SSEClientTransport(new URL(config.url), {
      requestInit: { headers },
      fetch: bounded,
      eventSourceInit: {
        fetch: (url, init) =>
          bounded(url, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), ...headers },
          }),
      },
    });
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
 * A per-request signal that follows the caller's (and can be aborted on its own). The SDK adds an
 * abort listener to the signal of every request and never removes it, so a long-lived caller
 * signal (a session's) would collect one listener per call; this one is dropped after the
 * request. It is its own abort listener on the source.
 */
class SignalRelay {
  readonly #source: AbortSignal | undefined;
  readonly #controller = new AbortController();

  /** A relay of `source`, or undefined without one. */
  static of(source: AbortSignal | undefined): SignalRelay | undefined {
    return source ? new SignalRelay(source) : undefined;
  }

  constructor(source: AbortSignal | undefined) {
    this.#source = source;
    if (source?.aborted) this.#controller.abort(source.reason);
    else source?.addEventListener('abort', this, { once: true });
  }

  /** The per-request signal. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Request options carrying the per-request signal. */
  get options(): { signal: AbortSignal } {
    return { signal: this.#controller.signal };
  }

  /** Aborts the per-request signal (the source is left alone). */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  /** The source fired. */
  handleEvent(): void {
    this.#controller.abort(this.#source?.reason);
  }

  /** Detaches from the source. */
  release(): void {
    this.#source?.removeEventListener('abort', this);
  }
}

function httpHeaders(config: McpHttpServerConfig): Record<string, string> {
  const headers: Record<string, string> = { ...(config.headers ?? {}) };
  if (config.bearerToken !== undefined) headers.Authorization = `Bearer ${config.bearerToken}`;
  return headers;
}

function isFallbackWorthy(error: unknown): boolean {
  const cause = (error as { options?: { cause?: unknown } }).options?.cause ?? error;
  const code = (cause as { code?: unknown }).code;
  // 401/403 mean the server speaks Streamable HTTP and refused us: falling back would not help.
  return code !== 401 && code !== 403;
}

function isParseError(error: unknown): boolean {
  return error instanceof SyntaxError || (error as { name?: string })?.name === 'ZodError';
}

function describeGarbage(error: unknown): string {
  if (error instanceof SyntaxError) return error.message;
  return 'a JSON value that is not a JSON-RPC message';
}
