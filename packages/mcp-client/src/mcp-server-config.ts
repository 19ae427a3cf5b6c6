import { displayUrl, escapeInvisible } from '@toolsys/core-tool-registry/text';
import { z } from 'zod';
import type { McpOAuthSettings } from './oauth/oauth-provider.js';
import { redactArguments } from './secret-patterns.js';

/**
 * Which MCP protocol a server is spoken to with. `auto` (the default) asks the server with
 * `server/discover` and speaks 2026-07-28 (stateless, no session) when it offers it, else the
 * 2025 `initialize` handshake; `2025-11-25` goes straight to the handshake (the server may still
 * pick an older 2025-era revision); `2026-07-28` speaks only that revision and fails against a
 * server that does not offer it.
 */
export const mcpProtocolVersionSchema = z.enum(['auto', '2025-11-25', '2026-07-28']);

/** A value of {@link mcpProtocolVersionSchema}. */
export type McpProtocolVersion = z.infer<typeof mcpProtocolVersionSchema>;

/** What every configured MCP server has. */
export interface McpServerConfigBase {
  /** Unique name of the server in this deployment (`[A-Za-z0-9_-]` keeps tool ids readable). */
  readonly name: string;
  /**
   * Whether the server's tool hints (readOnlyHint, idempotentHint) may lower risk or allow retries.
   * Default false: hints from an untrusted server never relax a gate.
   */
  readonly trusted?: boolean;
  /** Default time limit for one tool call in ms. Default 60 000. */
  readonly timeoutMs?: number;
  /**
   * The client config file the server was imported from (a `.vscode/mcp.json` that any cloned
   * repository can carry), when it was not written in the deployment's own config. Such a server
   * is started or contacted only after the user approves it, and is never trusted by its own
   * entry.
   */
  readonly importedFrom?: string;
  /** The protocol to speak (see {@link mcpProtocolVersionSchema}). Default `auto`. */
  readonly protocolVersion?: McpProtocolVersion;
  /**
   * Whether the server's tools are pinned: what was approved is kept, and a changed or new tool
   * is quarantined until approved again (`toolsys mcp diff`, `toolsys mcp approve`). Default:
   * true for an imported server, false for one of the deployment's own config.
   */
  readonly pin?: boolean;
}

/** A server started as a child process that speaks MCP over stdin/stdout. */
export interface McpStdioServerConfig extends McpServerConfigBase {
  /** Always `stdio`. */
  readonly transport: 'stdio';
  /** The executable, e.g. `npx` or `node`. Not run through a shell. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /**
   * Environment of the child. Passed explicitly: besides these, only the SDK's safe defaults
   * (HOME, LOGNAME, PATH, SHELL, TERM, USER) are inherited, never the whole host environment.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the child; the host's when absent. */
  readonly cwd?: string;
}

/** A server reached over HTTP. */
export interface McpHttpServerConfig extends McpServerConfigBase {
  /**
   * `http`: Streamable HTTP, falling back to the older HTTP+SSE transport when the server does not
   * speak it. `streamable-http` or `sse`: that transport only.
   */
  readonly transport: 'http' | 'streamable-http' | 'sse';
  /** The endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  readonly url: string;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer <token>`; never shown in listings or messages. */
  readonly bearerToken?: string;
  /**
   * A client registered beforehand with the server's authorization server (client id, secret,
   * scope). Without it a server that asks for OAuth is signed in to with a client metadata
   * document or a dynamically registered client.
   */
  readonly oauth?: McpOAuthSettings;
}

/** One MCP server of a deployment. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/**
 * The command line or URL of a server on one line: every argument as a JSON string (so spaces and
 * quotes are unambiguous) and every control, bidi or invisible character shown escaped;
 * environment variable and header names (not values), and the working directory.
 *
 * @deprecated Too little to approve a server by: use `describeServerApproval`, which also shows
 * the program that really runs and the environment values that change it.
 */
export function describeForApproval(config: McpServerConfig): string {
  if (config.transport === 'stdio') {
    const line = [config.command, ...(config.args ?? [])]
      .map((part) => JSON.stringify(part))
      .join(' ');
    const env = Object.keys(config.env ?? {});
    return escapeInvisible(
      `${line}${env.length > 0 ? ` (environment: ${env.join(', ')})` : ''}${config.cwd === undefined ? '' : ` (in ${config.cwd})`}`,
    );
  }
  const url = urlWithoutPassword(config.url);
  const headers = Object.keys(config.headers ?? {});
  return escapeInvisible(
    `${config.transport} ${url}${headers.length > 0 ? ` (headers: ${headers.join(', ')})` : ''}`,
  );
}

/**
 * A server URL as a person approving it sees it: whole (host, path and query say where the calls
 * go), but for a password in its user-info, shown as `***`. Text that is not a URL is shown as
 * written.
 */
export function urlWithoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Whether `config`'s tools are pinned (see {@link McpServerConfigBase.pin}). */
export function isPinned(config: McpServerConfig): boolean {
  return config.pin ?? config.importedFrom !== undefined;
}

/** Whether a server name can appear in a registry id (`mcp__<server>__<tool>`) unchanged. */
export function isSafeServerName(name: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(name);
}

/**
 * A one-line description of where a server lives, without secrets: no env values, no headers,
 * secret-looking arguments as `***`, URLs without credentials or query.
 */
export function describeServerTarget(config: McpServerConfig): string {
  if (config.transport === 'stdio') {
    return [config.command, ...redactArguments(config.args ?? [])].join(' ');
  }
  return `${config.transport} ${displayUrl(config.url)}`;
}
