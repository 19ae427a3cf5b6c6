// The configured MCP servers as `toolsys mcp` sees them: read from the mcp-client section of the
// config (inline, and the client config file it imports), without composing the deployment.
import {
  configuredServers,
  type McpClientConfig,
  type McpServerConfig,
  toolPackage,
} from '@toolsys/mcp-client';
import { ConfigError, loadDeploymentConfig, type ResolvedDeploymentConfig } from '../config.js';
import { parsePackageSection } from '../packages/package-section.js';
import { type CliIo, UsageError } from './types.js';

/** The servers and the data directory of the config `--config` names (or the one found). */
export async function mcpServersOf(
  io: CliIo,
  configPath: string | undefined,
): Promise<{ servers: McpServerConfig[]; dataDir: string; issues: string[] }> {
  let resolved: ResolvedDeploymentConfig;
  try {
    resolved = loadDeploymentConfig({ env: io.env, ...(configPath ? { path: configPath } : {}) });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  return mcpServersOfConfig(resolved, io.env);
}

/** The MCP servers a loaded deployment config names; section problems are usage errors. */
export async function mcpServersOfConfig(
  resolved: ResolvedDeploymentConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ servers: McpServerConfig[]; dataDir: string; issues: string[] }> {
  const raw = (resolved.config.packages as Record<string, unknown> | undefined)?.[toolPackage.key];
  const parsed = parsePackageSection(toolPackage, raw);
  if (parsed.problems) throw new UsageError(`Config problems:\n${parsed.problems.join('\n')}`);
  const { servers, issues } = await configuredServers({
    config: parsed.section.config as McpClientConfig,
    workspaceRoot: resolved.workspaceRoot,
    configDir: resolved.configDir,
    env: resolved.env ?? env,
  });
  return { servers, dataDir: resolved.dataDir, issues };
}

/** The configured server `name`; a usage error naming the configured ones otherwise. */
export function pickServer(servers: readonly McpServerConfig[], name: string): McpServerConfig {
  const server = servers.find((candidate) => candidate.name === name);
  if (server) return server;
  const known = servers.map((candidate) => candidate.name);
  throw new UsageError(
    `No configured MCP server named "${name}".${known.length > 0 ? ` Configured: ${known.join(', ')}.` : ' None is configured (packages.mcp-client.servers or importConfig).'}`,
  );
}
