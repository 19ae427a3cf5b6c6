import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { countTokens } from '@toolsys/platform';
import { removeOnExit } from '../cleanup.js';
import { hostCliArgsAnywhere } from '../processes.js';
import { type Bench, formatRatio } from '../report.js';
import { listToolsOverStdio, type StdioServerSpawn } from '../stdio-list.js';

/** Our tokens per tool, at most this share of the peer's. */
const TARGET_RATIO = 0.8;
/** The whole `tools/list` of discover mode, at most this many tokens. */
const TARGET_DISCOVER_TOKENS = 700;
/** The default deployment lists at least this many tools (the figure is about the full list). */
const MIN_TOOLS = 80;
const CHROMIUM = '/usr/bin/chromium';
/** The parts of a listed tool the breakdown reports, in that order. */
const PARTS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  '_meta',
] as const;

/** What one `tools/list` costs a model, in o200k tokens. */
export interface CatalogCost {
  /** Tools listed. */
  readonly tools: number;
  /** Tokens of the whole `tools/list` result, as compact JSON (what a client passes on). */
  readonly tokens: number;
  /** Bytes of that JSON. */
  readonly bytes: number;
  /** Tokens per part of the tools (each part's JSON, summed over the tools). */
  readonly parts: Record<(typeof PARTS)[number] | 'other', number>;
  /** The costliest tools, most tokens first. */
  readonly costliest: readonly { name: string; tokens: number }[];
}

/** Counts what a raw `tools/list` result costs: o200k tokens of its compact JSON, and per part. */
export function catalogCost(result: { tools: Record<string, unknown>[] }): CatalogCost {
  const json = JSON.stringify(result);
  const parts = Object.fromEntries([...PARTS, 'other'].map((part) => [part, 0])) as Record<
    (typeof PARTS)[number] | 'other',
    number
  >;
  const perTool: { name: string; tokens: number }[] = [];
  for (const tool of result.tools) {
    for (const [key, value] of Object.entries(tool)) {
      const part = (PARTS as readonly string[]).includes(key)
        ? (key as (typeof PARTS)[number])
        : 'other';
      parts[part] += countTokens(JSON.stringify(value));
    }
    perTool.push({ name: String(tool.name), tokens: countTokens(JSON.stringify(tool)) });
  }
  perTool.sort((a, b) => b.tokens - a.tokens);
  return {
    tools: result.tools.length,
    tokens: countTokens(json),
    bytes: Buffer.byteLength(json),
    parts,
    costliest: perTool.slice(0, 8),
  };
}

function perTool(cost: CatalogCost): number {
  return cost.tools === 0 ? Number.NaN : cost.tokens / cost.tools;
}

function peerSpawn(scratch: string): StdioServerSpawn {
  const require = createRequire(import.meta.url);
  const peerCli = join(dirname(require.resolve('@playwright/mcp/package.json')), 'cli.js');
  return {
    command: process.execPath,
    args: [peerCli, '--headless', '--executable-path', CHROMIUM, '--isolated'],
    cwd: scratch,
    env: {
      ...process.env,
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
      PLAYWRIGHT_BROWSERS_PATH: join(scratch, 'no-browsers'),
    },
  };
}

/** `toolsys serve --stdio` from source in `scratch`: the embedded default, or `config` if given. */
function hostSpawn(scratch: string, name: string, config?: string): StdioServerSpawn {
  const args =
    config === undefined ? ['serve', '--stdio'] : ['serve', '--stdio', '--config', config];
  return {
    command: process.execPath,
    args: hostCliArgsAnywhere(...args),
    cwd: scratch,
    env: { ...process.env, INIT_CWD: scratch, TOOLSYS_DATA_DIR: join(scratch, `data-${name}`) },
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * `pnpm bench catalog`: what `tools/list` costs a model, in o200k tokens over the whole JSON
 * result: `toolsys serve --stdio` on the embedded default deployment against @playwright/mcp in
 * the same run (per tool), and discover mode's whole list. Not timed; the counts do not depend on
 * load. A breakdown per part (descriptions, input and output schemas, `_meta` …) and the costliest
 * tools guide trimming.
 */
export const catalogBench: Bench = {
  name: 'catalog',
  summary:
    'tools/list token cost (o200k): default deployment per tool vs @playwright/mcp, discover mode',
  async run() {
    const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-catalog-')));
    try {
      const discoverConfig = join(scratch, 'discover.config.json');
      writeFileSync(discoverConfig, JSON.stringify({ tools: { mode: 'discover' } }));
      const ours = catalogCost(
        (await listToolsOverStdio(hostSpawn(scratch, 'all'), 'toolsys-bench-catalog')).result,
      );
      const peer = catalogCost(
        (await listToolsOverStdio(peerSpawn(scratch), 'toolsys-bench-catalog')).result,
      );
      const discover = catalogCost(
        (
          await listToolsOverStdio(
            hostSpawn(scratch, 'discover', discoverConfig),
            'toolsys-bench-catalog',
          )
        ).result,
      );
      const tokensPerTool = perTool(ours);
      const peerTokensPerTool = perTool(peer);
      const ratio = tokensPerTool / peerTokensPerTool;
      const breakdown = (cost: CatalogCost) =>
        Object.entries(cost.parts)
          .filter(([, tokens]) => tokens > 0)
          .map(([part, tokens]) => `${part} ${tokens}`)
          .join(', ');
      return {
        name: 'catalog',
        target: `ratio <= ${TARGET_RATIO} with >= ${MIN_TOOLS} tools, discoverTokens <= ${TARGET_DISCOVER_TOKENS}`,
        met:
          ratio <= TARGET_RATIO &&
          ours.tools >= MIN_TOOLS &&
          discover.tokens <= TARGET_DISCOVER_TOKENS,
        lines: [
          'o200k tokens of the whole tools/list result (compact JSON)',
          `toolsys (default deployment): ${ours.tools} tools, ${ours.tokens} tokens, ${ours.bytes} bytes; ${round1(tokensPerTool)} per tool`,
          `  by part: ${breakdown(ours)}`,
          `  costliest: ${ours.costliest.map((tool) => `${tool.name} ${tool.tokens}`).join(', ')}`,
          `@playwright/mcp: ${peer.tools} tools, ${peer.tokens} tokens, ${peer.bytes} bytes; ${round1(peerTokensPerTool)} per tool`,
          `  by part: ${breakdown(peer)}`,
          `ratio (per tool, toolsys / @playwright/mcp): ${formatRatio(ratio)}`,
          `discover mode: ${discover.tools} tools, ${discover.tokens} tokens`,
        ],
        json: {
          ratio: Number(ratio.toFixed(3)),
          tokensPerTool: round1(tokensPerTool),
          peerTokensPerTool: round1(peerTokensPerTool),
          tools: ours.tools,
          peerTools: peer.tools,
          tokens: ours.tokens,
          peerTokens: peer.tokens,
          bytes: ours.bytes,
          discoverTokens: discover.tokens,
          discoverTools: discover.tools,
          breakdown: ours.parts,
          peerBreakdown: peer.parts,
          costliest: ours.costliest,
        },
      };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
