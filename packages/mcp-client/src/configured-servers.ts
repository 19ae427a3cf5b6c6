// The servers a deployment configures for the MCP client: inline in its section, or imported from
// a Claude Desktop, Cursor, Claude Code or VS Code config file.
import { resolve } from 'node:path';
import type { ToolPackageEnvironment } from '@toolsys/core-tool-registry';
import { McpConfigImport, type McpConfigImportResult } from './mcp-config-import.js';
import type { McpServerConfig } from './mcp-server-config.js';
import type { McpClientConfig } from './tool-package.js';

/**
 * The servers of the package's config section: inline, and imported from the client config file
 * it names. Bad entries are skipped and reported in `issues`.
 */
export async function configuredServers(
  environment: Pick<
    ToolPackageEnvironment<McpClientConfig>,
    'config' | 'workspaceRoot' | 'configDir' | 'env'
  >,
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
