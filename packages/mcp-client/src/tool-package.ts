import { resolve } from 'node:path';
import { defineToolPackage, type ToolPackageEnvironment } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { McpConfigImport, type McpConfigImportResult } from './mcp-config-import.js';
import { McpManager } from './mcp-manager.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { McpToolRegistrar } from './mcp-tool-registrar.js';
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

/** Reads the inline servers and the imported config file; bad entries are skipped and reported. */
async function loadServers(
  environment: ToolPackageEnvironment<McpClientConfig>,
): Promise<{ servers: McpServerConfig[]; issues: string[] }> {
  const { config } = environment;
  const options = {
    workspaceFolder: environment.workspaceRoot,
    trusted: config.trusted ?? [],
  };
  const results: Array<{ source: string; result: McpConfigImportResult }> = [];
  if (config.servers) {
    results.push({
      source: 'packages.mcp-client.servers',
      result: McpConfigImport.fromObject(
        { mcpServers: config.servers },
        { ...options, origin: 'deployment', env: environment.env },
      ),
    });
  }
  if (config.importConfig !== undefined) {
    const spec =
      typeof config.importConfig === 'string' ? { path: config.importConfig } : config.importConfig;
    results.push({
      source: spec.path,
      result: await McpConfigImport.readFile(resolve(environment.configDir, spec.path), {
        ...options,
        origin: 'imported',
        source: spec.path,
        // Only the variables the deployment names: a file from a cloned repository must not
        // carry the host's secrets into a command or a URL.
        env: pickVariables(environment.env, 'allowEnv' in spec ? spec.allowEnv : undefined),
        ...(spec.inputs ? { inputs: spec.inputs } : {}),
      }),
    });
  }
  const servers: McpServerConfig[] = [];
  const issues: string[] = [];
  for (const { source, result } of results) {
    for (const error of result.errors) issues.push(`${source}: ${error.field}: ${error.message}`);
    for (const warning of result.warnings) {
      issues.push(`${source}: ${warning.field}: warning: ${warning.message}`);
    }
    for (const server of result.servers) {
      if (servers.some((known) => known.name === server.name)) {
        issues.push(`${source}: server "${server.name}" is defined twice; the first one is kept`);
        continue;
      }
      servers.push(server);
    }
  }
  return { servers, issues };
}

/** The named variables of `env` (none without names). */
function pickVariables(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[] | undefined,
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names ?? []) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

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
    const { servers, issues } = await loadServers(environment);
    const summary = `pure Node, always available; ${servers.length} server(s) configured`;
    return {
      enabled: true,
      reason: issues.length > 0 ? `${summary}; ${issues.join('; ')}` : summary,
    };
  },
  async create(context) {
    const gate = context.mode === 'gate';
    const config: McpClientConfig = gate ? {} : context.config;
    const { servers } = gate ? { servers: [] } : await loadServers(context);
    const manager = new McpManager({
      servers,
      client: { directToolCalls: config.directToolCalls },
    });
    const approvals = new McpServerApprovals(manager, { workspaceRoot: context.workspaceRoot });
    const registrar =
      !gate && config.registerRemoteTools === true
        ? new McpToolRegistrar({ manager, registry: context.registry, approvals })
        : undefined;
    registrar?.attach();
    return {
      tools: createMcpTools({
        manager,
        adHoc: config.adHoc ?? 'confirm',
        approvals,
        workspaceRoot: context.workspaceRoot,
      }),
      endSession(sessionId) {
        approvals.endSession(sessionId);
      },
      async dispose() {
        registrar?.detach();
        await manager.close();
      },
    };
  },
});
