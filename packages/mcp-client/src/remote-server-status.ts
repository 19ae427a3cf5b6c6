// What is known of each configured server without contacting it: its sign-in (for one
// principal) and its pins. `toolsys mcp status`, `toolsys doctor` and the dashboard show it;
// a token never appears in it.
import { describeServerTarget, isPinned, type McpServerConfig } from './mcp-server-config.js';
import { loginCommand } from './oauth/oauth-errors.js';
import { oauthStoreOf, type SignInState, signInState } from './oauth/server-sign-in.js';
import { diffCommand } from './pins/quarantine-errors.js';
import { type QuarantinedTool, ToolPins } from './pins/tool-pins.js';
import { pinsDirectory } from './remote-server-access.js';

/** One server's status (see the file comment). */
export interface RemoteServerStatus {
  /** Its name. */
  readonly name: string;
  /** Where it lives, without secrets. */
  readonly target: string;
  /** The principal's sign-in; absent for a stdio server. */
  readonly signIn?: SignInState;
  /** Whether its tools are pinned. */
  readonly pinned: boolean;
  /** How many tools are approved (0 before the first listing). */
  readonly approvedTools: number;
  /** Tools held back since the last listing. */
  readonly quarantined: readonly QuarantinedTool[];
}

/** The status of every server in `servers` for `principal`, from the files under `dataDir`. */
export async function remoteServerStatuses(
  servers: readonly McpServerConfig[],
  dataDir: string,
  principal: string,
  now: number = Date.now(),
): Promise<RemoteServerStatus[]> {
  const pins = new ToolPins(pinsDirectory(dataDir));
  return Promise.all(
    servers.map(async (server) => {
      const pinned = await pins.file(server.name).load();
      const quarantined = Object.keys(pinned?.pending ?? {}).map((name) => ({
        name,
        reason: pinned?.approved[name] === undefined ? ('new' as const) : ('changed' as const),
      }));
      return {
        name: server.name,
        target: describeServerTarget(server),
        ...(server.transport === 'stdio'
          ? {}
          : { signIn: await signInState(oauthStoreOf(dataDir, principal, server.name), now) }),
        pinned: isPinned(server),
        approvedTools: Object.keys(pinned?.approved ?? {}).length,
        quarantined,
      };
    }),
  );
}

/** One actionable line per server that needs the user: a sign-in, or quarantined tools. */
export function statusNotes(statuses: readonly RemoteServerStatus[]): string[] {
  const notes: string[] = [];
  for (const status of statuses) {
    const state = status.signIn?.state;
    if (state === 'needs-sign-in' || state === 'expired') {
      notes.push(
        `server "${status.name}" ${state === 'expired' ? 'has an expired sign-in' : 'needs sign-in'}: run \`${loginCommand(status.name)}\``,
      );
    }
    if (status.quarantined.length > 0) {
      notes.push(
        `server "${status.name}" has ${status.quarantined.length} quarantined tool(s): run \`${diffCommand(status.name)}\``,
      );
    }
  }
  return notes;
}
