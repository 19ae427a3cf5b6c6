import type { CliCommand } from './types.js';

/** What `toolsys help` shows of a sub-command, and how to load the code that runs it. */
export interface CliCommandInfo {
  readonly name: string;
  /** One line for `toolsys help`. */
  readonly summary: string;
  /** Usage line, e.g. `toolsys call <id> [json-args] [--json]`. */
  readonly usage: string;
  /**
   * Imports the command's module. Commands load on demand so that `--version`, `--help` and
   * usage errors import no tool package.
   */
  load(): Promise<CliCommand>;
}

/** Every `toolsys` sub-command, in help order. */
export const COMMAND_CATALOG: readonly CliCommandInfo[] = [
  {
    name: 'list',
    summary: 'List the tools of the deployment, grouped by category.',
    usage: 'toolsys list [--category C] [--json] [--config FILE]',
    load: async () => (await import('./list.js')).listCommand,
  },
  {
    name: 'describe',
    summary: 'Show one tool: metadata, annotations, run policy and input JSON Schema.',
    usage: 'toolsys describe <id> [--json] [--config FILE]',
    load: async () => (await import('./describe.js')).describeCommand,
  },
  {
    name: 'call',
    summary: 'Call a tool through the full pipeline and print the result.',
    usage: 'toolsys call <id> [json-args] [--json] [--yes] [--config FILE]',
    load: async () => (await import('./call.js')).callCommand,
  },
  {
    name: 'serve',
    summary: 'Serve the tools over MCP: --stdio for desktop clients, --http for MCP + dashboard.',
    usage:
      'toolsys serve (--stdio | --http [--host 127.0.0.1] [--port 7821] [--token-env NAME]) [--config FILE]',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'doctor',
    summary: 'Show which packages are on or off and why (backends found, plugins loaded).',
    usage: 'toolsys doctor [--json] [--config FILE]',
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
  {
    name: 'mcp',
    summary:
      'Remote MCP servers: sign in (login) and out (logout), status, and the tools a pinned server changed (diff, approve).',
    usage:
      'toolsys mcp (login <server> [--port N] [--timeout S] [--no-browser] | logout <server> | status [server] | diff <server> | approve <server> [--tool NAME]) [--principal KEY] [--json] [--config FILE]',
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
  {
    name: 'trace',
    summary: 'Show recent tool-call spans and the latency histogram (from the trace file).',
    usage: 'toolsys trace [--limit N] [--json] [--config FILE]',
    load: async () => (await import('./trace.js')).traceCommand,
  },
  {
    name: 'grant',
    summary: 'Allow a tool always for every caller, or take that back (operators; audited).',
    usage: 'toolsys grant (<id> --everyone [--revoke] | --list) [--config FILE]',
    load: async () => (await import('./grant.js')).grantCommand,
  },
  {
    name: 'audit',
    summary: 'Show who called which tool, what was decided and how it ended (the audit log).',
    usage:
      'toolsys audit [--principal ID] [--tool ID] [--since T] [--until T] [--limit N] [--json] [--config FILE]',
    load: async () => (await import('./audit.js')).auditCommand,
  },
];

/** The catalog entry of `name`; throws for a name not in the catalog (a programmer mistake). */
export function commandInfo(name: string): Pick<CliCommandInfo, 'name' | 'summary' | 'usage'> {
  const info = COMMAND_CATALOG.find((candidate) => candidate.name === name);
  if (!info) throw new Error(`no command "${name}" in the catalog`);
  return { name: info.name, summary: info.summary, usage: info.usage };
}
