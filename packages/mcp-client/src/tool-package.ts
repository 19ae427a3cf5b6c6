import { defineToolPackage, principalKey } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { configuredServers } from './configured-servers.js';
import { McpToolRegistrar } from './mcp-tool-registrar.js';
import { RemoteServerAccess } from './remote-server-access.js';
import { remoteServerStatuses, statusNotes } from './remote-server-status.js';
import { McpServerApprovals } from './server-approvals.js';
import { createMcpTools } from './tools/index.js';

/** The `packages.mcp-client` section of `toolsys.config.json`. */
export const mcpClientConfigSchema = z
  .object({
    servers: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'MCP servers to connect, keyed by name, in the `mcpServers` shape of Claude Desktop / Claude Code.',
      ),
    importConfig: z
      .union([
        z.string(),
        z
          .object({
            path: z.string(),
            inputs: z.record(z.string(), z.string()).optional(),
            allowEnv: z
              .array(z.string())
              .optional()
              .describe(
                'Host environment variables the imported file may reference as env:NAME; no other is expanded.',
              ),
          })
          .strict(),
      ])
      .optional()
      .describe(
        'A Claude Desktop, Cursor, Claude Code or VS Code config file to import servers from (relative to the config file). Its servers start only once the user approves each; its own `trusted` is ignored; it may reference only the host variables named in allowEnv.',
      ),
    trusted: z
      .array(z.string())
      .optional()
      .describe('Servers whose tool hints may relax gates (read-only tools become LOW risk).'),
    adHoc: z
      .enum(['confirm', 'allow', 'deny'])
      .optional()
      .describe('Servers given by the model in mcp_connect: confirm (default), allow or deny.'),
    registerRemoteTools: z
      .boolean()
      .optional()
      .describe('Also register every remote tool as mcp__<server>__<tool>. Default false.'),
    directToolCalls: z
      .boolean()
      .optional()
      .describe(
        'Send tools/call directly on stdio connections (same protocol, less overhead). Default true; false uses the MCP SDK request path.',
      ),
  })
  .strict();

/** The mcp-client config section. */
export type McpClientConfig = z.infer<typeof mcpClientConfigSchema>;

/**
 * The MCP client package as a deployment composes it: on by default. Contributes `mcp_connect`,
 * `mcp_list` and `mcp_call` (once), with the servers of its section (inline, or imported from a
 * Claude Desktop / Cursor / Claude Code / VS Code config). Nothing connects at start-up: servers
 * start on first use, and `dispose()` stops every child process. In gate mode no file is read.
 */
export const toolPackage = defineToolPackage<McpClientConfig>({
  name: '@toolsys/mcp-client',
  key: 'mcp-client',
  description: 'connect to any MCP server and call its tools',
  configSchema: mcpClientConfigSchema,
  async detect(environment) {
    const { servers, issues } = await configuredServers(environment);
    const notes = statusNotes(
      await remoteServerStatuses(servers, environment.dataDir, principalKey(undefined)).catch(
        () => [],
      ),
    );
    const summary = `pure Node, always available; ${servers.length} server(s) configured`;
    return { enabled: true, reason: [summary, ...notes, ...issues].join('; ') };
  },
  async create(context) {
    const gate = context.mode === 'gate';
    const config: McpClientConfig = gate ? {} : context.config;
    const { servers } = gate ? { servers: [] } : await configuredServers(context);
    const access = new RemoteServerAccess({
      servers,
      dataDir: context.dataDir,
      client: { directToolCalls: config.directToolCalls },
      persistent: !gate,
    });
    const managerFor = access.managers.forCaller;
    const approvals = new McpServerApprovals(managerFor, { workspaceRoot: context.workspaceRoot });
    const registrar =
      !gate && config.registerRemoteTools === true
        ? new McpToolRegistrar({
            manager: access.managers.local,
            managerFor,
            registry: context.registry,
            approvals,
          })
        : undefined;
    registrar?.attach();
    return {
      tools: createMcpTools({
        manager: access.managers.local,
        managerFor,
        adHoc: config.adHoc ?? 'confirm',
        approvals,
        workspaceRoot: context.workspaceRoot,
      }),
      endSession(sessionId) {
        approvals.endSession(sessionId);
      },
      async dispose() {
        registrar?.detach();
        await access.close();
      },
    };
  },
});
