import {
  DEFAULT_ARGUMENT_DESCRIPTION_LIMITS,
  failureResult,
  principalKey,
  type ToolContext,
  ToolErrorCode,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import type { McpManager } from './mcp-manager.js';
import { describeServerApproval, type ServerApprovalOptions } from './server-approval-text.js';

/**
 * The user's approvals of servers imported from client config files (a `.vscode/mcp.json` that
 * any cloned repository can carry). Before such a server is started or contacted, the user is
 * asked, once per session (or once for all of their sessions with "always"; an answer holds for
 * the principal who gave it only), with the exact command or URL, the
 * program that really runs and the environment it gets shown escaped. A server from the deployment's own config, or an ad hoc one (which `mcp_connect`
 * confirms itself), needs nothing here.
 */
export class McpServerApprovals {
  readonly #managerFor: (caller: Pick<ToolContext, 'principal'>) => McpManager;
  /** `session \0 principal \0 server` triples approved for their session. */
  readonly #session = new Set<string>();
  /** `principal \0 server` pairs approved for every session of the principal (until close). */
  readonly #always = new Set<string>();

  readonly #describe: ServerApprovalOptions;

  /**
   * `manager`: the manager (or the manager of a caller's principal) whose servers are approved;
   * `options`: where the shown program is looked up, and the workspace it is compared with.
   */
  constructor(
    manager: McpManager | ((caller: Pick<ToolContext, 'principal'>) => McpManager),
    options: ServerApprovalOptions = {},
  ) {
    this.#managerFor = typeof manager === 'function' ? manager : () => manager;
    this.#describe = options;
  }

  /** Whether `server` may be started or contacted for this caller's session without asking. */
  isApproved(server: string, caller: Pick<ToolContext, 'sessionId' | 'principal'>): boolean {
    const config = this.#managerFor(caller).config(server);
    if (config?.importedFrom === undefined) return true;
    const who = principalKey(caller.principal);
    return (
      this.#always.has(`${who}\u0000${server}`) ||
      this.#session.has(`${caller.sessionId}\u0000${who}\u0000${server}`)
    );
  }

  /**
   * Asks the user before an imported server is started or contacted; undefined when it may go
   * on, a PERMISSION_DENIED result otherwise.
   */
  async authorise(server: string, context: ToolContext): Promise<ToolResult | undefined> {
    const config = this.#managerFor(context).config(server);
    if (config?.importedFrom === undefined || this.isApproved(server, context)) {
      return undefined;
    }
    const described = await describeServerApproval(config, this.#describe);
    if (described.length > DEFAULT_ARGUMENT_DESCRIPTION_LIMITS.maxLength) {
      // No one approves what they cannot read through; a partial prompt is never shown.
      return failureResult(
        ToolErrorCode.PERMISSION_DENIED,
        `MCP server "${server}" (imported from ${config.importedFrom}) takes ${described.length} characters to show for approval, more than ${DEFAULT_ARGUMENT_DESCRIPTION_LIMITS.maxLength}, so the user was not asked.`,
        {
          hint: 'Do not retry with this server; ask the user to configure it in the deployment instead.',
          details: { server, reason: 'unshowable' },
        },
      );
    }
    const action =
      config.transport === 'stdio'
        ? `Start MCP server "${server}" imported from ${config.importedFrom}: ${described}`
        : `Connect to MCP server "${server}" imported from ${config.importedFrom}: ${described}`;
    const decision = await context.confirm({
      action,
      risk: 'HIGH',
      reason:
        "This server comes from a client config file (which any cloned repository can carry), not from the deployment's own config.",
    });
    if (decision === 'deny') {
      return failureResult(
        ToolErrorCode.PERMISSION_DENIED,
        `The user did not approve MCP server "${server}" (imported from ${config.importedFrom}).`,
        {
          hint: 'Do not retry with this server; ask the user to approve or configure it, or use another server.',
          details: { server, reason: 'not_approved' },
        },
      );
    }
    const who = principalKey(context.principal);
    if (decision === 'allow_session') {
      this.#session.add(`${context.sessionId}\u0000${who}\u0000${server}`);
    }
    if (decision === 'allow_always') this.#always.add(`${who}\u0000${server}`);
    this.#managerFor(context).approve(server);
    return undefined;
  }

  /** Forgets what was approved for a session that ended. */
  endSession(sessionId: string): void {
    const prefix = `${sessionId}\u0000`;
    for (const key of this.#session) if (key.startsWith(prefix)) this.#session.delete(key);
  }
}
