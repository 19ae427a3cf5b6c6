import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  composeDeployment,
  createMcpServer,
  resolveDeploymentConfig,
  ToolHost,
} from '@toolsys/host';
import { countTokens } from '@toolsys/platform';
import { replaceMarkedSection } from './marked-section.js';

const CATALOG_START = '<!-- catalog:start -->';
const CATALOG_END = '<!-- catalog:end -->';

/** What the `tools/list` of the embedded default deployment costs in one tool mode. */
export interface CatalogFigures {
  readonly mode: 'all' | 'discover';
  /** Tools listed. */
  readonly tools: number;
  /** Bytes of the `tools/list` result as compact JSON. */
  readonly bytes: number;
  /** o200k tokens of that JSON. */
  readonly tokens: number;
}

/**
 * Composes the embedded default deployment (no config file, no environment) in `mode`, lists its
 * tools over an in-memory MCP connection and measures the `tools/list` result exactly as it was
 * sent.
 */
export async function measureCatalog(mode: 'all' | 'discover'): Promise<CatalogFigures> {
  const scratch = mkdtempSync(join(tmpdir(), 'toolsys-catalog-'));
  const deployment = await composeDeployment(
    resolveDeploymentConfig(
      { dataDir: join(scratch, 'data'), tools: { mode } },
      { cwd: scratch, env: {} },
    ),
  );
  const { connect, dispose } = createMcpServer(new ToolHost(deployment));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'toolsys-readme', version: '1.0.0' });
  try {
    await connect(serverSide);
    await client.connect(clientSide);
    // The result as it came over the wire, before the client library parses it.
    const raw = new Promise<unknown>((resolve) => {
      const deliver = clientSide.onmessage;
      clientSide.onmessage = (message: JSONRPCMessage, extra) => {
        if ('result' in message && Array.isArray(message.result.tools)) resolve(message.result);
        deliver?.(message, extra);
      };
    });
    const { tools } = await client.listTools();
    const json = JSON.stringify(await raw);
    return { mode, tools: tools.length, bytes: Buffer.byteLength(json), tokens: countTokens(json) };
  } finally {
    await client.close();
    dispose();
    await deployment.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The README table of {@link CatalogFigures}, one row per mode. */
export function renderCatalogTable(figures: readonly CatalogFigures[]): string {
  const rows = figures.map(({ mode, tools, bytes, tokens }) => {
    const label = mode === 'all' ? '`all` (default)' : `\`${mode}\``;
    const kilobytes = `${(bytes / 1024).toFixed(1)} KB`;
    const perTool = mode === 'all' ? ` (${Math.round(tokens / tools)} per tool)` : '';
    return `| ${label} | ${tools} | ${kilobytes} | ${tokens.toLocaleString('en-US')}${perTool} |`;
  });
  return [
    '| mode | tools listed | `tools/list` size | o200k tokens |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** `readme` with the text between the catalog markers replaced; undefined without the markers. */
export function replaceCatalogTable(readme: string, table: string): string | undefined {
  return replaceMarkedSection(readme, CATALOG_START, CATALOG_END, table);
}
