import type { Tool } from '@modelcontextprotocol/client';
import {
  cautiousHints,
  defineTool,
  isRetrySafe,
  maxRisk,
  RunPolicies,
  riskFromHints,
  type ToolAnnotations,
  type ToolContext,
  type ToolMetadataInput,
  type ToolRegistry,
  type ToolRunPolicy,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { cleanUntrustedText, defuseMarkers } from '@toolsys/core-tool-registry/text';
import { toToolResult } from './call-result.js';
import type { McpManager } from './mcp-manager.js';
import { MCP_CALL_POLICY } from './mcp-run-policies.js';
import { callWithProgress } from './progress-emitter.js';
import { McpServerApprovals } from './server-approvals.js';
import { stripTerminalControls } from './terminal-text.js';

/** Options for {@link McpToolRegistrar}. */
export interface McpToolRegistrarOptions {
  /** Where the servers and their catalogs live. */
  manager: McpManager;
  /** The registry the remote tools are registered into. */
  registry: ToolRegistry;
  /** Owner recorded on the registered tools. Default `@toolsys/mcp-client`. */
  owner?: string;
  /**
   * The user's approvals of imported servers (share the one given to `createMcpTools`): a call
   * to a tool of an imported server asks first. Default: a new one.
   */
  approvals?: McpServerApprovals;
  /**
   * The manager a call of a registered tool goes through, per caller (each principal's own
   * connections and sign-ins). Default: {@link manager}, whose catalogs are registered.
   */
  managerFor?: (context: Pick<ToolContext, 'principal'>) => McpManager;
}

/** A remote tool the registrar could not register, and why. */
export interface SkippedRemoteTool {
  /** The server offering the tool. */
  readonly server: string;
  /** The tool's name on that server. */
  readonly tool: string;
  /** Why it was not registered. */
  readonly reason: string;
}

/** What one {@link McpToolRegistrar.sync} did. */
export interface RegistrarSyncOutcome {
  /** Ids registered or updated. */
  readonly registered: string[];
  /** Ids removed because the server no longer offers them. */
  readonly removed: string[];
  /** Tools left out, with the reason. */
  readonly skipped: SkippedRemoteTool[];
}

const MAX_DESCRIPTION = 1_000;

/**
 * Registers every tool of every MCP server as a first-class registry tool `mcp__<server>__<tool>`,
 * so it runs through the full pipeline (risk gate, validation, limits, traces). Characters a
 * registry id cannot hold become `_`; the original names are kept for the call, and two names that
 * map to the same id are refused (skipped with a reason), never merged.
 *
 * Hints from a server that is not marked trusted never relax a gate: such tools stay at least
 * MEDIUM risk and are never retried, whatever `readOnlyHint` or `idempotentHint` they claim; a
 * tool that declares no hints is MEDIUM even on a trusted server.
 */
export class McpToolRegistrar {
  readonly #manager: McpManager;
  readonly #registry: ToolRegistry;
  readonly #owner: string;
  readonly #approvals: McpServerApprovals;
  readonly #managerFor: (context: Pick<ToolContext, 'principal'>) => McpManager;
  readonly #byServer = new Map<string, Map<string, string>>();
  readonly #targets = new Map<string, { server: string; tool: string }>();
  #unsubscribe: (() => void) | undefined;

  constructor(options: McpToolRegistrarOptions) {
    this.#manager = options.manager;
    this.#registry = options.registry;
    this.#owner = options.owner ?? '@toolsys/mcp-client';
    this.#managerFor = options.managerFor ?? (() => options.manager);
    this.#approvals = options.approvals ?? new McpServerApprovals(this.#managerFor);
  }

  /** Follows the manager: every catalog change re-syncs that server. Returns the detach function. */
  attach(): () => void {
    this.#unsubscribe?.();
    const unsubscribe = this.#manager.onCatalogChange((server) => {
      this.sync(server);
    });
    for (const server of this.#manager.names()) this.sync(server);
    this.#unsubscribe = unsubscribe;
    return () => this.detach();
  }

  /** Stops following the manager and unregisters every remote tool it registered. */
  detach(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const server of [...this.#byServer.keys()]) this.#clear(server);
  }

  /** The server and original tool name behind a registered id. */
  resolve(id: string): { server: string; tool: string } | undefined {
    return this.#targets.get(id);
  }

  /** Registered ids, optionally of one server, sorted. */
  ids(server?: string): string[] {
    const servers = server === undefined ? [...this.#byServer.keys()] : [server];
    return servers.flatMap((name) => [...(this.#byServer.get(name)?.values() ?? [])]).sort();
  }

  /** Registers the server's current catalog, replacing what was registered for it before. */
  sync(server: string): RegistrarSyncOutcome {
    const tools = this.#manager.has(server) ? this.#manager.tools(server) : [];
    const trusted = this.#manager.has(server) && this.#manager.config(server)?.trusted === true;
    const previous = this.#byServer.get(server) ?? new Map<string, string>();
    const next = new Map<string, string>();
    const registered: string[] = [];
    const skipped: SkippedRemoteTool[] = [];
    for (const tool of tools) {
      const id = toRegistryId(server, tool.name);
      const taken = this.#targets.get(id);
      if (taken && (taken.server !== server || taken.tool !== tool.name)) {
        skipped.push({
          server,
          tool: tool.name,
          reason: `its id "${id}" is already used by tool "${taken.tool}" of server "${taken.server}"`,
        });
        continue;
      }
      if (next.has(tool.name)) continue;
      const existing = this.#registry.get(id);
      if (existing && existing.owner !== this.#owner) {
        skipped.push({
          server,
          tool: tool.name,
          reason: `id "${id}" belongs to ${existing.owner}`,
        });
        continue;
      }
      this.#registry.register(this.#define(server, tool, id, trusted), { owner: this.#owner });
      this.#targets.set(id, { server, tool: tool.name });
      next.set(tool.name, id);
      registered.push(id);
    }
    const removed: string[] = [];
    for (const id of previous.values()) {
      if ([...next.values()].includes(id)) continue;
      if (this.#registry.get(id)?.owner === this.#owner) this.#registry.unregister(id);
      this.#targets.delete(id);
      removed.push(id);
    }
    if (next.size > 0) this.#byServer.set(server, next);
    else this.#byServer.delete(server);
    return { registered, removed, skipped };
  }

  #clear(server: string): void {
    for (const id of this.#byServer.get(server)?.values() ?? []) {
      if (this.#registry.get(id)?.owner === this.#owner) this.#registry.unregister(id);
      this.#targets.delete(id);
    }
    this.#byServer.delete(server);
  }

  #define(server: string, remote: Tool, id: string, trusted: boolean) {
    const managerFor = this.#managerFor;
    const approvals = this.#approvals;
    const { metadata, runPolicy } = describeRemote(remote, trusted);
    return defineTool({
      id,
      description: describeRemoteTool(server, remote),
      inputSchema: ToolSchema.fromRendered(remote.inputSchema),
      metadata,
      runPolicy,
      async execute(args, context) {
        const refused = await approvals.authorise(server, context);
        if (refused) return refused;
        return callWithProgress(context, { signal: context.signal }, (callOptions) =>
          managerFor(context).callToolWith(server, remote.name, args, toToolResult, callOptions),
        );
      },
    });
  }
}

/** The registry id of a remote tool: `mcp__<server>__<tool>` with other characters as `_`. */
export function toRegistryId(server: string, tool: string): string {
  const safeServer = server.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
  const safeTool = tool.replace(/[^A-Za-z0-9_.-]/g, '_') || '_';
  return `mcp__${safeServer}__${safeTool}`;
}

/**
 * Metadata and run policy of a remote tool, from the hints its server declared (the kernel's
 * {@link riskFromHints} and {@link cautiousHints}: no hints is MEDIUM, never LOW; destructive is
 * HIGH). Untrusted: the hints never relax a gate, so the tool is at least MEDIUM, never read-only
 * or idempotent and never retried. Trusted: the hints are believed, what is missing is cautious.
 */
export function describeRemote(
  remote: Tool,
  trusted: boolean,
): { metadata: ToolMetadataInput; runPolicy: ToolRunPolicy } {
  const hints = declaredHints(remote);
  if (!trusted) {
    return {
      metadata: {
        category: 'mcp',
        risk: maxRisk([riskFromHints(hints), 'MEDIUM']),
        tags: ['mcp', 'remote'],
        annotations: cautiousHints(undefined),
      },
      runPolicy: MCP_CALL_POLICY,
    };
  }
  const annotations = cautiousHints(hints);
  return {
    metadata: {
      category: 'mcp',
      risk: riskFromHints(hints),
      tags: ['mcp', 'remote', 'trusted'],
      annotations,
    },
    runPolicy: isRetrySafe(annotations) ? RunPolicies.network : MCP_CALL_POLICY,
  };
}

/** The MCP hints a remote tool declares, only those with a boolean value. */
function declaredHints(remote: Tool): Partial<ToolAnnotations> {
  const hints: Partial<Record<keyof ToolAnnotations, boolean>> = {};
  for (const key of [
    'readOnlyHint',
    'destructiveHint',
    'idempotentHint',
    'openWorldHint',
  ] as const) {
    const value = remote.annotations?.[key];
    if (typeof value === 'boolean') hints[key] = value;
  }
  return hints;
}

/**
 * The description of a remote tool registered as a first-class tool: who wrote it first (the
 * remote server, untrusted), then its text cleaned (control, bidi, invisible and tag characters,
 * hidden comments, forged markers) and bounded. Markers would be heavy in every entry of a tool
 * catalog, and a catalog is not a result the model reads content from; the attribution at the
 * start, outside what the server wrote, serves the same purpose.
 */
export function describeRemoteTool(server: string, remote: Tool): string {
  const raw = stripTerminalControls(remote.description ?? remote.title ?? '');
  const text = defuseMarkers(cleanUntrustedText(raw).text)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  const origin = `Remote tool "${remote.name}" of MCP server "${server}"; its description is the server's, not verified`;
  return text ? `${origin}: ${clip(text)}` : `${origin}.`;
}

function clip(text: string): string {
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}
