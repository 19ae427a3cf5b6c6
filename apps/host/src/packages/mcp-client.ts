import { dirname, resolve } from 'node:path';
import {
  createMcpTools,
  type McpAdHocPolicy,
  McpConfigImport,
  type McpConfigImportResult,
  McpManager,
  type McpServerConfig,
  McpToolRegistrar,
} from '@toolsys/mcp-client';
import { z } from 'zod';
import type { ResolvedDeploymentConfig } from '../config.js';
import type { ToolPackageEntry } from './types.js';

/** The `packages['mcp-client']` section of `toolsys.config.json`. */
const mcpClientSectionSchema = z
  .object({
    enabled: z.boolean().optional(),
    servers: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Servers inline, in the `mcpServers` shape of Claude Desktop / Claude Code.'),
    importConfig: z
      .union([
        z.string(),
        z.object({
          path: z.string(),
          inputs: z.record(z.string(), z.string()).optional(),
        }),
      ])
      .optional()
      .describe(
        'A Claude Desktop, Cursor, Claude Code or VS Code config file to import servers from (relative to this file).',
      ),
    trusted: z
      .array(z.string())
      .optional()
      .describe('Servers whose tool hints may relax gates (read-only tools become LOW risk).'),
    adHoc: z
      .enum(['confirm', 'allow', 'deny'])
      .optional()
      .describe('Servers given by the model in mcp_connect: ask (default), allow or deny.'),
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
  .loose();

type McpClientSection = z.infer<typeof mcpClientSectionSchema>;

function readSection(deployment: ResolvedDeploymentConfig): McpClientSection {
  const parsed = mcpClientSectionSchema.safeParse(deployment.config.packages?.['mcp-client'] ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(
    `packages.mcp-client.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
  );
}

/** Reads the inline servers and the imported config file; bad entries are skipped and reported. */
async function loadServers(
  deployment: ResolvedDeploymentConfig,
  section: McpClientSection,
): Promise<{ servers: McpServerConfig[]; issues: string[] }> {
  const options = {
    env: process.env,
    workspaceFolder: deployment.workspaceRoot,
    trusted: section.trusted ?? [],
  };
  const results: Array<{ source: string; result: McpConfigImportResult }> = [];
  if (section.servers) {
    results.push({
      source: 'packages.mcp-client.servers',
      result: McpConfigImport.fromObject({ mcpServers: section.servers }, options),
    });
  }
  if (section.importConfig !== undefined) {
    const spec =
      typeof section.importConfig === 'string'
        ? { path: section.importConfig }
        : section.importConfig;
    const base = deployment.file ? dirname(deployment.file) : deployment.workspaceRoot;
    results.push({
      source: spec.path,
      result: await McpConfigImport.readFile(resolve(base, spec.path), {
        ...options,
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

/**
 * The MCP client package: on by default. Contributes `mcp_connect`, `mcp_list` and `mcp_call`
 * (once), with the servers from `packages['mcp-client']` (inline, or imported from a Claude
 * Desktop / Cursor / Claude Code / VS Code config). Nothing connects at start-up: servers start on
 * first use, and `dispose()` stops every child process. In `gate` mode no file is read.
 */
export const mcpClientPackage: ToolPackageEntry = {
  name: '@toolsys/mcp-client',
  key: 'mcp-client',
  async detect(deployment) {
    const section = readSection(deployment);
    const { servers, issues } = await loadServers(deployment, section);
    const summary = `pure Node, always available; ${servers.length} server(s) configured`;
    return {
      enabled: true,
      reason: issues.length > 0 ? `${summary}; ${issues.join('; ')}` : summary,
    };
  },
  async create({ deployment, registry, mode }) {
    const section = mode === 'gate' ? {} : readSection(deployment);
    const { servers } = mode === 'gate' ? { servers: [] } : await loadServers(deployment, section);
    const manager = new McpManager({
      servers,
      client: { directToolCalls: section.directToolCalls },
    });
    const adHoc: McpAdHocPolicy = section.adHoc ?? 'confirm';
    const registrar =
      mode === 'serve' && section.registerRemoteTools === true
        ? new McpToolRegistrar({ manager, registry })
        : undefined;
    registrar?.attach();
    return {
      tools: createMcpTools({ manager, adHoc }),
      async dispose() {
        registrar?.detach();
        await manager.close();
      },
    };
  },
};
