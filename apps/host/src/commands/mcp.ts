// `toolsys mcp`: the user's side of remote MCP servers: sign in and out, see where each stands,
// review and approve the tools a pinned server changed.
import { principalKey } from '@toolsys/core-tool-registry';
import {
  approveCommand,
  loginCommand,
  type McpServerConfig,
  oauthStoreOf,
  pinsDirectory,
  quarantineDiff,
  type RemoteServerStatus,
  remoteServerStatuses,
  signInToServer,
  ToolPins,
} from '@toolsys/mcp-client';
import { commandInfo } from './catalog.js';
import { loginToServer } from './mcp-login.js';
import { mcpServersOf, pickServer } from './mcp-servers.js';
import { splitArgs } from './shared.js';
import { type CliCommand, type CliIo, UsageError } from './types.js';

const ACTIONS = ['login', 'logout', 'status', 'diff', 'approve'] as const;

/** `toolsys mcp <login|logout|status|diff|approve>`. */
export const mcpCommand: CliCommand = {
  ...commandInfo('mcp'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['json', 'no-browser'],
      values: ['config', 'port', 'timeout', 'principal', 'tool'],
    });
    const [action, name, ...extra] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) {
      throw new UsageError(
        action === undefined
          ? `Name an action: ${ACTIONS.join(', ')}.`
          : `Unknown action "${action}": use ${ACTIONS.join(', ')}.`,
      );
    }
    if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
    if (action !== 'status' && name === undefined) {
      throw new UsageError(`toolsys mcp ${action} needs a server name.`);
    }
    const { servers, dataDir } = await mcpServersOf(io, values.get('config'));
    const principal = values.get('principal') ?? principalKey(undefined);
    const json = flags.has('json');
    if (action === 'status') {
      const statuses = await remoteServerStatuses(
        name === undefined ? servers : [pickServer(servers, name)],
        dataDir,
        principal,
      );
      io.stdout.write(
        json ? `${JSON.stringify({ servers: statuses }, null, 2)}\n` : renderStatus(statuses),
      );
      return 0;
    }
    const server = pickServer(servers, name as string);
    switch (action) {
      case 'login':
        return loginToServer(server, io, {
          dataDir,
          principal,
          timeoutMs: seconds(values.get('timeout'), 300) * 1000,
          browser: !flags.has('no-browser') && io.interactive,
          json,
          ...(values.has('port') ? { port: port(values.get('port') as string) } : {}),
        });
      case 'logout':
        await oauthStoreOf(dataDir, principal, server.name).clear();
        io.stdout.write(
          json
            ? `${JSON.stringify({ server: server.name, signedIn: false })}\n`
            : `Signed out of MCP server "${server.name}" (its stored tokens are deleted).\n`,
        );
        return 0;
      case 'diff':
        return diff(server, dataDir, io, json);
      default:
        return approve(server, dataDir, principal, io, {
          json,
          tools: values.has('tool') ? [values.get('tool') as string] : undefined,
        });
    }
  },
};

async function diff(
  server: McpServerConfig,
  dataDir: string,
  io: CliIo,
  json: boolean,
): Promise<number> {
  const pins = await new ToolPins(pinsDirectory(dataDir)).file(server.name).load();
  const pending = Object.keys(pins?.pending ?? {});
  if (json) {
    io.stdout.write(
      `${JSON.stringify(
        {
          server: server.name,
          quarantined: pending.map((tool) => ({
            name: tool,
            before: pins?.approved[tool]?.tool ?? null,
            after: pins?.pending?.[tool]?.tool,
          })),
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  if (pending.length === 0) {
    io.stdout.write(`MCP server "${server.name}" has no quarantined tools.\n`);
    return 0;
  }
  io.stdout.write(
    `${quarantineDiff(server.name, pins)}\n\nApprove with \`${approveCommand(server.name)}\` (or --tool NAME for one).\n`,
  );
  return 0;
}

async function approve(
  server: McpServerConfig,
  dataDir: string,
  principal: string,
  io: CliIo,
  options: { json: boolean; tools: string[] | undefined },
): Promise<number> {
  const pins = new ToolPins(pinsDirectory(dataDir));
  let approved: string[];
  if ((await pins.file(server.name).load()) === undefined) {
    // Nothing pinned yet: what the server lists now is what the user approves.
    if (server.transport === 'stdio') {
      throw new UsageError(
        `MCP server "${server.name}" has not been listed yet; its tools are pinned the first time it runs once approved.`,
      );
    }
    const { tools } = await signInToServer(server, {
      store: oauthStoreOf(dataDir, principal, server.name),
      timeoutMs: 30_000,
    }).catch((error: Error) => {
      throw new UsageError(
        `MCP server "${server.name}" could not be listed (${error.message.split('\n')[0]}); sign in first with \`${loginCommand(server.name)}\`.`,
      );
    });
    await pins.check(server.name, tools);
    approved = tools.map((tool) => tool.name);
  } else {
    approved = await pins.approve(server.name, options.tools);
  }
  io.stdout.write(
    options.json
      ? `${JSON.stringify({ server: server.name, approved })}\n`
      : approved.length === 0
        ? `MCP server "${server.name}" has no quarantined tools${options.tools ? ` named ${options.tools.join(', ')}` : ''} to approve.\n`
        : `Approved ${approved.length} tool(s) of MCP server "${server.name}": ${approved.join(', ')}. They are listed at its next listing.\n`,
  );
  return 0;
}

function renderStatus(statuses: readonly RemoteServerStatus[]): string {
  if (statuses.length === 0) return 'No MCP servers are configured.\n';
  const lines = statuses.map((status) => {
    const signIn = status.signIn;
    const state =
      signIn === undefined
        ? 'local program (no sign-in)'
        : signIn.state === 'signed-in'
          ? `signed in${signIn.expiresAt === undefined ? '' : `, token ${signIn.expiresAt > Date.now() ? 'expires' : 'expired'} ${new Date(signIn.expiresAt).toISOString()}${signIn.refreshable ? ' (refreshed on use)' : ''}`}`
          : signIn.state === 'expired'
            ? `sign-in expired: run \`${loginCommand(status.name)}\``
            : signIn.state === 'needs-sign-in'
              ? `needs sign-in: run \`${loginCommand(status.name)}\``
              : 'no sign-in stored';
    const pinned = status.pinned
      ? `pinned, ${status.approvedTools} tool(s) approved${status.quarantined.length > 0 ? `, QUARANTINED: ${status.quarantined.map((tool) => `${tool.name} (${tool.reason})`).join(', ')}` : ''}`
      : 'not pinned';
    return `${status.name}  ${status.target}\n  ${state}\n  ${pinned}`;
  });
  return `${lines.join('\n')}\n`;
}

function seconds(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    throw new UsageError('--timeout needs a positive number of seconds.');
  }
  return parsed;
}

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535) {
    throw new UsageError('--port needs a port number (1-65535).');
  }
  return parsed;
}
