import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { RemoteToolRef } from './call-result.js';
import {
  asIs,
  type McpCallOptions,
  McpClient,
  type McpClientOptions,
  type McpRequestOptions,
} from './mcp-client.js';
import { type Entry, newEntry } from './mcp-manager-entry.js';
import { describeServerTarget, isPinned, type McpServerConfig } from './mcp-server-config.js';
import { indexByName, type McpServerState, partitionByName } from './mcp-server-state.js';
import type { PinnedListing, QuarantinedTool } from './pins/tool-pins.js';

/** Where a manager checks listings of pinned servers (see `ToolPins`). */
export interface McpToolPinCheck {
  /** Splits a server's listing into the tools as approved and those quarantined. */
  check(server: string, tools: readonly Tool[]): Promise<PinnedListing>;
}

/** Options for {@link McpManager}. */
export interface McpManagerOptions {
  /** Servers known from the start (configured servers). They connect on first use. */
  servers?: readonly McpServerConfig[];
  /** Options handed to every {@link McpClient}. */
  client?: McpClientOptions;
  /** Time limit of connecting (process start + handshake) in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Time limit of a catalog refresh in ms. Default 15 000. */
  listTimeoutMs?: number;
  /** Reconnection backoff after failed attempts: `random(0 .. baseMs * 2^(failures-1))`, capped. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Clock in ms (injectable for tests). Default `Date.now`. */
  now?: () => number;
  /** Random source in [0, 1) for the backoff jitter. Default `Math.random`. */
  random?: () => number;
  /**
   * Least time between two catalog refreshes that `notifications/tools/list_changed` starts, in
   * ms: a storm of them makes at most one refresh run and one wait. Default 1 000.
   */
  listChangedMinIntervalMs?: number;
  /**
   * The pins of servers whose tools are pinned (see `McpServerConfigBase.pin`); without it no
   * server's tools are pinned.
   */
  pins?: McpToolPinCheck;
  /** Told of every failed connection attempt (e.g. to notice a server that needs sign-in). */
  onConnectFailure?: (server: string, error: unknown) => void;
}

/** Options of {@link McpManager.add}. */
export interface McpAddOptions {
  /** Added at run time by a model rather than configured. */
  adHoc?: boolean;
  /** Replace a server of the same name (closing its connection). Default false: throws. */
  replace?: boolean;
}

/**
 * Named MCP servers: connect on demand, disconnect, reconnect with jittered backoff after failures,
 * health checks, and the last good tool catalog of each server (a slow or failing refresh never
 * makes tools vanish). No timers: backoff is evaluated when a connection is next needed.
 */
export class McpManager {
  readonly #entries = new Map<string, Entry>();
  readonly #catalogListeners = new Set<(server: string, tools: readonly Tool[]) => void>();
  readonly #clientOptions: McpClientOptions;
  readonly #connectTimeoutMs: number;
  readonly #listTimeoutMs: number;
  readonly #backoffBaseMs: number;
  readonly #backoffMaxMs: number;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #listChangedMinIntervalMs: number;
  readonly #pins: McpToolPinCheck | undefined;
  readonly #onConnectFailure: ((server: string, error: unknown) => void) | undefined;
  #closed = false;

  constructor(options: McpManagerOptions = {}) {
    this.#clientOptions = options.client ?? {};
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    this.#listTimeoutMs = options.listTimeoutMs ?? 15_000;
    this.#backoffBaseMs = options.backoff?.baseMs ?? 500;
    this.#backoffMaxMs = options.backoff?.maxMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#listChangedMinIntervalMs = options.listChangedMinIntervalMs ?? 1_000;
    this.#pins = options.pins;
    this.#onConnectFailure = options.onConnectFailure;
    for (const server of options.servers ?? []) this.add(server);
  }

  /** Adds a server; it connects on first use. Throws on a taken name unless `replace`. */
  add(config: McpServerConfig, options: McpAddOptions = {}): void {
    const existing = this.#entries.get(config.name);
    if (existing && !options.replace) {
      throw new Error(`MCP server "${config.name}" is already configured.`);
    }
    if (existing) void this.#drop(existing);
    this.#entries.set(config.name, newEntry(config, options.adHoc ?? false));
  }

  /** Removes a server, closing its connection. */
  async remove(name: string): Promise<boolean> {
    const entry = this.#entries.get(name);
    if (!entry) return false;
    this.#entries.delete(name);
    await this.#drop(entry);
    this.#emitCatalog(name, []);
    return true;
  }

  /** Whether a server of this name exists. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Server names in insertion order. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** A server's configuration. */
  config(name: string): McpServerConfig | undefined {
    return this.#entries.get(name)?.config;
  }

  /** The live client of a connected server. */
  client(name: string): McpClient | undefined {
    const entry = this.#entries.get(name);
    return entry?.status === 'connected' ? entry.client : undefined;
  }

  /** A snapshot of one server; throws NOT_FOUND for an unknown name. */
  state(name: string): McpServerState {
    return this.#snapshot(this.#require(name));
  }

  /** Snapshots of every server. */
  states(): McpServerState[] {
    return [...this.#entries.values()].map((entry) => this.#snapshot(entry));
  }

  /** The last good tool catalog of a server (empty before the first successful listing). */
  tools(name: string): readonly Tool[] {
    return this.#entries.get(name)?.tools ?? [];
  }

  /**
   * A tool of a connected server's catalog by name, without connecting or refreshing; undefined
   * when the server is not connected or does not list it. The call path's one lookup.
   */
  connectedTool(name: string, tool: string): Tool | undefined {
    const entry = this.#entries.get(name);
    if (entry?.status !== 'connected' || !entry.client?.isConnected) return undefined;
    return entry.toolsByName.get(tool);
  }

  /** Subscribes to catalog changes (after a successful refresh, or a removal). */
  onCatalogChange(listener: (server: string, tools: readonly Tool[]) => void): () => void {
    this.#catalogListeners.add(listener);
    return () => this.#catalogListeners.delete(listener);
  }

  /**
   * Connects (if needed) and refreshes the catalog. Fails with EXECUTION_FAILED while the backoff
   * after failed attempts has not elapsed (the message says when to retry).
   */
  async connect(name: string, options: { signal?: AbortSignal } = {}): Promise<McpServerState> {
    const entry = this.#require(name);
    await this.#ensureClient(entry, options.signal);
    return this.#snapshot(entry);
  }

  /**
   * Records that the user approved starting (or contacting) an imported server. Until then the
   * manager refuses to connect it, whoever asks: the tools ask the user first
   * (see {@link McpServerApprovals}).
   */
  approve(name: string): void {
    this.#require(name).approved = true;
  }

  /**
   * Lets the next use of a server that failed to connect try at once (its credentials changed,
   * e.g. a sign-in completed), instead of after the backoff.
   */
  retrySoon(name: string): void {
    const entry = this.#require(name);
    entry.nextAttemptAt = 0;
  }

  /** Closes a server's connection; it reconnects on next use. */
  async disconnect(name: string): Promise<void> {
    const entry = this.#require(name);
    await this.#drop(entry);
    entry.status = 'disconnected';
  }

  /**
   * Lists the server's tools again. On failure or timeout the previous catalog is kept and marked
   * stale; the error is returned, not thrown.
   */
  async refreshTools(
    name: string,
    options: McpRequestOptions = {},
  ): Promise<{ tools: readonly Tool[]; error?: string }> {
    const entry = this.#require(name);
    const client = await this.#ensureClient(entry, options.signal, false);
    const error = await this.#refresh(entry, client, options);
    return error === undefined ? { tools: entry.tools } : { tools: entry.tools, error };
  }

  /** Calls a remote tool, connecting first when needed. Errors are {@link ToolError}s. */
  callTool(
    name: string,
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<CallToolResult> {
    return this.callToolWith(name, tool, args, asIs, options);
  }

  /**
   * {@link callTool} with the result handed to `convert` inside the client's own step (see
   * {@link McpClient.callToolWith}): one turn of the job queue less per call.
   */
  callToolWith<T>(
    name: string,
    tool: string,
    args: Record<string, unknown>,
    convert: (result: CallToolResult, ref: RemoteToolRef) => T,
    options: McpCallOptions = {},
  ): Promise<T> {
    const entry = this.#entries.get(name);
    const client = entry?.status === 'connected' ? entry.client : undefined;
    // Connected (the common case): straight to the client, without an extra turn.
    if (entry && client?.isConnected)
      return client.callToolWith(tool, args, convert, withTimeout(entry, options));
    return this.#connectAndCall(name, tool, args, convert, options);
  }

  async #connectAndCall<T>(
    name: string,
    tool: string,
    args: Record<string, unknown>,
    convert: (result: CallToolResult, ref: RemoteToolRef) => T,
    options: McpCallOptions,
  ): Promise<T> {
    const entry = this.#require(name);
    const client = await this.#ensureClient(entry, options.signal);
    return client.callToolWith(tool, args, convert, withTimeout(entry, options));
  }

  /** Pings a server (connecting first); reports instead of throwing. */
  async health(
    name: string,
    options: McpRequestOptions = {},
  ): Promise<{ ok: boolean; latencyMs?: number; error?: string }> {
    const entry = this.#require(name);
    try {
      const client = await this.#ensureClient(entry, options.signal, false);
      const started = this.#now();
      await client.ping({ timeoutMs: options.timeoutMs ?? 5_000, ...signalOf(options) });
      return { ok: true, latencyMs: this.#now() - started };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  /** Closes every connection (every stdio child process); the manager refuses new connections after. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#entries.values()].map((entry) => this.#drop(entry)));
  }

  async #ensureClient(entry: Entry, signal?: AbortSignal, listTools = true): Promise<McpClient> {
    if (entry.status === 'connected' && entry.client?.isConnected) return entry.client;
    if (entry.pending) return entry.pending;
    if (this.#closed) {
      throw new ToolError(ToolErrorCode.UNSUPPORTED, 'The MCP manager has been shut down.');
    }
    if (!entry.approved) {
      throw new ToolError(
        ToolErrorCode.PERMISSION_DENIED,
        `MCP server "${entry.config.name}" was imported from ${entry.config.importedFrom} and the user has not approved starting it.`,
        {
          hint: 'Ask the user to approve it (mcp_connect with this server asks), or to configure it in the deployment.',
          details: { server: entry.config.name, reason: 'not_approved' },
        },
      );
    }
    const waitMs = entry.nextAttemptAt - this.#now();
    if (entry.status === 'failed' && waitMs > 0) {
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `MCP server "${entry.config.name}" failed to connect ${entry.failures} time(s) in a row (last error: ${entry.lastError ?? 'unknown'}); the next attempt is allowed in ${Math.ceil(waitMs)} ms.`,
        {
          retryAfterMs: waitMs,
          hint: 'Wait before retrying, or check the server configuration with mcp_list.',
          details: { server: entry.config.name, reason: 'backoff' },
        },
      );
    }
    const pending = this.#open(entry, signal, listTools);
    entry.pending = pending;
    try {
      return await pending;
    } finally {
      if (entry.pending === pending) entry.pending = undefined;
    }
  }

  async #open(
    entry: Entry,
    signal: AbortSignal | undefined,
    listTools: boolean,
  ): Promise<McpClient> {
    entry.status = 'connecting';
    const generation = ++entry.generation;
    const client = new McpClient(entry.config, this.#clientOptions);
    try {
      await client.connect({ timeoutMs: this.#connectTimeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      await client.close();
      if (entry.generation === generation) {
        entry.status = 'failed';
        entry.failures += 1;
        entry.lastError = (error as Error).message;
        entry.nextAttemptAt = this.#now() + this.#backoffDelay(entry.failures);
      }
      this.#onConnectFailure?.(entry.config.name, error);
      throw error;
    }
    if (entry.generation !== generation || this.#closed) {
      await client.close();
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `MCP server "${entry.config.name}" was disconnected while connecting.`,
      );
    }
    entry.client = client;
    entry.status = 'connected';
    entry.failures = 0;
    entry.nextAttemptAt = 0;
    entry.lastError = undefined;
    client.onClose(() => {
      if (entry.client !== client) return;
      entry.client = undefined;
      entry.status = 'disconnected';
      entry.lastError = 'the connection closed (the server exited or ended the session)';
    });
    client.onToolsChanged(() => {
      if (entry.client === client) this.#refreshSoon(entry, client);
    });
    if (listTools) await this.#refresh(entry, client, signal ? { signal } : {});
    return client;
  }

  /**
   * Refreshes the catalog, joining a refresh already running (a storm of requests makes one
   * listing, not one each).
   */
  #refresh(
    entry: Entry,
    client: McpClient,
    options: McpRequestOptions,
  ): Promise<string | undefined> {
    if (entry.refreshing) return entry.refreshing;
    entry.refreshStartedAt = this.#now();
    const running = this.#list(entry, client, options);
    entry.refreshing = running;
    const done = () => {
      if (entry.refreshing === running) entry.refreshing = undefined;
      if (entry.refreshQueued && entry.client === client) {
        entry.refreshQueued = false;
        this.#refreshSoon(entry, client);
      }
    };
    running.then(done, done);
    return running;
  }

  /**
   * A refresh that `list_changed` asks for: at most one runs and one waits, and two start at
   * least `listChangedMinIntervalMs` apart, however many notifications the server sends.
   */
  #refreshSoon(entry: Entry, client: McpClient): void {
    if (entry.refreshing) {
      entry.refreshQueued = true;
      return;
    }
    if (entry.refreshTimer !== undefined) return;
    const waitMs = entry.refreshStartedAt + this.#listChangedMinIntervalMs - this.#now();
    if (waitMs <= 0) {
      void this.#refresh(entry, client, {});
      return;
    }
    entry.refreshTimer = setTimeout(() => {
      entry.refreshTimer = undefined;
      if (entry.client === client && !this.#closed) void this.#refresh(entry, client, {});
    }, waitMs);
    entry.refreshTimer.unref?.();
  }

  async #list(
    entry: Entry,
    client: McpClient,
    options: McpRequestOptions,
  ): Promise<string | undefined> {
    try {
      const listing = await client.listToolPages({
        timeoutMs: options.timeoutMs ?? this.#listTimeoutMs,
        ...signalOf(options),
      });
      const { kept, rejected } = partitionByName(listing.tools);
      await this.#applyPins(entry, kept);
      entry.rejectedTools = Object.freeze(rejected);
      entry.catalogStale = false;
      entry.catalogTruncated = listing.truncated;
      this.#emitCatalog(entry.config.name, entry.tools);
      return undefined;
    } catch (error) {
      // Keep the last good catalog: a slow server must not make its tools vanish.
      entry.catalogStale = true;
      entry.lastError = (error as Error).message;
      return entry.lastError;
    }
  }

  /** Sets the catalog from a listing, holding back what the pins quarantine. */
  async #applyPins(entry: Entry, listed: readonly Tool[]): Promise<void> {
    const pinned = this.#pins !== undefined && !entry.adHoc && isPinned(entry.config);
    const { allowed, quarantined } = pinned
      ? await (this.#pins as McpToolPinCheck).check(entry.config.name, listed)
      : { allowed: listed, quarantined: [] };
    entry.listed = Object.freeze([...listed]);
    entry.tools = Object.freeze([...allowed]);
    entry.toolsByName = indexByName(entry.tools);
    entry.quarantined = Object.freeze([...quarantined]);
  }

  /**
   * Checks the last listing of `name` against its pins again (after an approval), without asking
   * the server; listeners hear of the new catalog.
   */
  async recheckPins(name: string): Promise<McpServerState> {
    const entry = this.#require(name);
    await this.#applyPins(entry, entry.listed);
    this.#emitCatalog(name, entry.tools);
    return this.#snapshot(entry);
  }

  /** The quarantine of `name`'s tool `tool`, if its last listing held it back. */
  quarantinedTool(name: string, tool: string): QuarantinedTool | undefined {
    return this.#entries.get(name)?.quarantined.find((entry) => entry.name === tool);
  }

  #backoffDelay(failures: number): number {
    const ceiling = Math.min(this.#backoffMaxMs, this.#backoffBaseMs * 2 ** (failures - 1));
    return Math.floor(this.#random() * ceiling);
  }

  async #drop(entry: Entry): Promise<void> {
    entry.generation += 1;
    if (entry.refreshTimer !== undefined) clearTimeout(entry.refreshTimer);
    entry.refreshTimer = undefined;
    entry.refreshQueued = false;
    const client = entry.client;
    entry.client = undefined;
    entry.pending = undefined;
    if (entry.status === 'connected' || entry.status === 'connecting')
      entry.status = 'disconnected';
    await client?.close();
  }

  #require(name: string): Entry {
    const entry = this.#entries.get(name);
    if (entry) return entry;
    const known = this.names();
    throw new ToolError(ToolErrorCode.NOT_FOUND, `No MCP server named "${name}".`, {
      field: 'server',
      hint:
        known.length > 0
          ? `Use one of: ${known.join(', ')} (mcp_list shows them), or connect a new one with mcp_connect.`
          : 'No MCP servers are configured; connect one with mcp_connect.',
      details: { server: name, known },
    });
  }

  #snapshot(entry: Entry): McpServerState {
    const waitMs = entry.nextAttemptAt - this.#now();
    const info = entry.client?.serverInfo;
    const era = entry.status === 'connected' ? entry.client?.era : undefined;
    const version = entry.client?.protocolVersion;
    return {
      name: entry.config.name,
      target: describeServerTarget(entry.config),
      transport: entry.config.transport,
      ...(entry.status === 'connected' && entry.client?.transportKind
        ? { connectedVia: entry.client.transportKind }
        : {}),
      ...(era && version ? { protocol: { era, version } } : {}),
      status: entry.status,
      trusted: entry.config.trusted === true,
      adHoc: entry.adHoc,
      imported: entry.config.importedFrom !== undefined,
      awaitingApproval: !entry.approved,
      tools: entry.tools,
      catalogStale: entry.catalogStale,
      ...(entry.catalogTruncated === undefined ? {} : { catalogTruncated: entry.catalogTruncated }),
      rejectedTools: entry.rejectedTools,
      quarantinedTools: entry.quarantined,
      ...(info ? { serverInfo: info } : {}),
      ...(entry.lastError === undefined ? {} : { lastError: entry.lastError }),
      consecutiveFailures: entry.failures,
      ...(entry.status === 'failed' && waitMs > 0 ? { retryAfterMs: Math.ceil(waitMs) } : {}),
    };
  }

  #emitCatalog(server: string, tools: readonly Tool[]): void {
    for (const listener of this.#catalogListeners) {
      try {
        listener(server, tools);
      } catch {
        // A listener's failure must not break the manager.
      }
    }
  }
}

/** The call's options with its time limit: the call's, else the server's, else 60 s. */
function withTimeout(entry: Entry, options: McpCallOptions): McpCallOptions {
  return options.timeoutMs === undefined
    ? { ...options, timeoutMs: entry.config.timeoutMs ?? 60_000 }
    : options;
}

function signalOf(options: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
