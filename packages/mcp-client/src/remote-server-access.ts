// How a deployment reaches its configured MCP servers: one manager per principal, each HTTP
// server signed in to with that principal's stored OAuth credentials (refreshed before expiry),
// the tools of pinned servers checked against what was approved, and a server that asks for a
// sign-in watched until one completes.
import { join } from 'node:path';
import { ToolError } from '@toolsys/core-tool-registry';
import type { McpClientOptions } from './mcp-client.js';
import { McpManager } from './mcp-manager.js';
import type { McpHttpServerConfig, McpServerConfig } from './mcp-server-config.js';
import { markSignInNeeded, oauthProviderFor, oauthStoreOf } from './oauth/server-sign-in.js';
import { SignInWatch } from './oauth/sign-in-watch.js';
import { ToolPins } from './pins/tool-pins.js';
import { PrincipalManagers } from './principal-managers.js';

/** The directory of the tool pins under a deployment's data directory. */
export function pinsDirectory(dataDir: string): string {
  return join(dataDir, 'mcp-pins');
}

/** Options of {@link RemoteServerAccess}. */
export interface RemoteServerAccessOptions {
  /** The configured servers. */
  readonly servers: readonly McpServerConfig[];
  /** The deployment's data directory (sign-ins under `mcp-oauth`, pins under `mcp-pins`). */
  readonly dataDir: string;
  /** Options of every client (`oauth` is this class's own). */
  readonly client?: Omit<McpClientOptions, 'oauth'>;
  /** Whether sign-ins and pins are kept (false: listing ids only, no file is read or written). */
  readonly persistent?: boolean;
  /** How often a server waiting for a sign-in is checked, in ms. Default 2 000. */
  readonly signInWatchMs?: number;
}

/** The managers of a deployment's principals, with sign-ins and pins (see the file comment). */
export class RemoteServerAccess {
  /** The manager of each principal. */
  readonly managers: PrincipalManagers;
  /** The pins of the servers, when kept. */
  readonly pins: ToolPins | undefined;
  readonly #watch: SignInWatch;
  readonly #dataDir: string;

  constructor(options: RemoteServerAccessOptions) {
    const persistent = options.persistent ?? true;
    this.#dataDir = options.dataDir;
    this.#watch = new SignInWatch(options.signInWatchMs);
    this.pins = persistent ? new ToolPins(pinsDirectory(options.dataDir)) : undefined;
    const configured = new Map(options.servers.map((server) => [server.name, server]));
    this.managers = new PrincipalManagers((principal) => {
      const manager: McpManager = new McpManager({
        servers: options.servers,
        ...(this.pins ? { pins: this.pins } : {}),
        client: {
          ...options.client,
          // Only a configured server is signed in to, and only at its configured URL: an ad hoc
          // server of the same name must never receive the configured one's token.
          ...(persistent
            ? {
                oauth: (config: McpHttpServerConfig) => {
                  const known = configured.get(config.name);
                  if (known?.transport === 'stdio' || known?.url !== config.url) return undefined;
                  return oauthProviderFor(config, {
                    store: oauthStoreOf(options.dataDir, principal, config.name),
                  });
                },
              }
            : {}),
        },
        onConnectFailure: (server, error) => this.#failed(principal, manager, server, error),
      });
      return manager;
    });
  }

  /**
   * Approves `server`'s quarantined tools (`names`: only these) and lists them at once in every
   * principal's manager. Returns the names approved.
   */
  async approve(server: string, names?: readonly string[]): Promise<string[]> {
    if (this.pins === undefined) return [];
    const approved = await this.pins.approve(server, names);
    for (const [, manager] of this.managers.entries()) {
      if (manager.has(server)) await manager.recheckPins(server);
    }
    return approved;
  }

  /** Stops watching and closes every connection. */
  async close(): Promise<void> {
    this.#watch.close();
    await this.managers.close();
  }

  /** A server that asked for a sign-in: noted for `toolsys mcp status`, and watched. */
  #failed(principal: string, manager: McpManager, server: string, error: unknown): void {
    if (failureReason(error) !== 'sign_in_required' || this.pins === undefined) return;
    const store = oauthStoreOf(this.#dataDir, principal, server);
    void markSignInNeeded(store).catch(() => undefined);
    this.#watch.watch(`${principal}\u0000${server}`, store, () => {
      manager.retrySoon(server);
      manager.connect(server).catch(() => undefined);
    });
  }
}

/** The `details.reason` of a tool error somewhere in `error`'s cause chain. */
export function failureReason(error: unknown): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth += 1) {
    if (cause instanceof ToolError) {
      const reason = cause.options.details?.reason;
      if (typeof reason === 'string') return reason;
    }
    cause = (cause as { options?: { cause?: unknown } }).options?.cause ?? cause.cause;
  }
  return undefined;
}
