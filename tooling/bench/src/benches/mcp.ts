import { McpManager, toToolResult } from '@toolsys/mcp-client';
import { type Bench, formatRatio, percentile } from '../report.js';
import {
  ECHO_ARGS,
  ERAS,
  type Era,
  type EraPeer,
  eraPeers,
  firstCallMs,
  pipelineFor,
  SIDES,
  type Side,
} from './mcp-eras.js';

const TARGET_RATIO = 1.1;
/** Each iteration calls every side once, in an order that rotates, so no side is always first. */
const ORDERS: readonly (readonly Side[])[] = [
  ['raw', 'client', 'ours'],
  ['ours', 'raw', 'client'],
  ['client', 'ours', 'raw'],
  ['raw', 'ours', 'client'],
  ['client', 'raw', 'ours'],
  ['ours', 'client', 'raw'],
];

/** Milliseconds per call of each side, as measured. */
export type SideTimes = Record<Side, readonly number[]>;

/** One era's figures: steady calls on one connection, and first calls on fresh processes. */
export interface EraFigures {
  readonly calls: number;
  readonly rawMeanMs: number;
  readonly oursMeanMs: number;
  readonly clientMeanMs: number;
  readonly rawP50Ms: number;
  readonly oursP50Ms: number;
  readonly clientP50Ms: number;
  readonly rawP99Ms: number;
  readonly oursP99Ms: number;
  /** One call after another, each side: 1000 / its mean ms. */
  readonly rawCallsPerSecond: number;
  readonly clientCallsPerSecond: number;
  readonly oursCallsPerSecond: number;
  /** Ours over raw at the median: the figure the target judges. */
  readonly ratio: number;
  /** Ours over raw at the mean. */
  readonly meanRatio: number;
  /** What the pipeline adds to the client alone, at the median, in µs. */
  readonly pipelineUs: number;
  /** What the client's direct tools/call saves over the SDK's request path, in µs. */
  readonly directSavesUs: number;
  /** Median ms from a fresh start to the first echo answer, each side. */
  readonly firstCallRawMs: number;
  readonly firstCallClientMs: number;
  readonly firstCallOursMs: number;
  /** First-call ours over raw, at the median. */
  readonly firstCallRatio: number;
}

/** Summarises one era's measurements (`steady`: warm calls, `first`: first calls) into figures. */
export function eraFigures(steady: SideTimes, first: SideTimes): EraFigures {
  const median = (values: readonly number[]) => percentile(sorted(values), 0.5);
  const mean = (values: readonly number[]) =>
    values.reduce((sum, value) => sum + value, 0) / values.length;
  const rawMean = mean(steady.raw);
  const oursMean = mean(steady.ours);
  const clientMean = mean(steady.client);
  const firstRaw = median(first.raw);
  const firstOurs = median(first.ours);
  return {
    calls: steady.raw.length,
    rawMeanMs: round(rawMean),
    oursMeanMs: round(oursMean),
    clientMeanMs: round(clientMean),
    rawP50Ms: round(median(steady.raw)),
    oursP50Ms: round(median(steady.ours)),
    clientP50Ms: round(median(steady.client)),
    rawP99Ms: round(percentile(sorted(steady.raw), 0.99)),
    oursP99Ms: round(percentile(sorted(steady.ours), 0.99)),
    rawCallsPerSecond: round(1000 / rawMean, 0),
    clientCallsPerSecond: round(1000 / clientMean, 0),
    oursCallsPerSecond: round(1000 / oursMean, 0),
    // Medians: a few GC pauses or a neighbour's burst would otherwise decide the figure.
    ratio: round(median(steady.ours) / median(steady.raw), 3),
    meanRatio: round(oursMean / rawMean, 3),
    pipelineUs: round((median(steady.ours) - median(steady.client)) * 1000, 1),
    directSavesUs: round((median(steady.raw) - median(steady.client)) * 1000, 1),
    firstCallRawMs: round(firstRaw, 1),
    firstCallClientMs: round(median(first.client), 1),
    firstCallOursMs: round(firstOurs, 1),
    firstCallRatio: round(firstOurs / firstRaw, 3),
  };
}

/** The 2026-07-28 figure over the 2025-11-25 one, per side: how the eras compare on each. */
export interface AcrossEras {
  readonly rawCallsPerSecond: number;
  readonly clientCallsPerSecond: number;
  readonly oursCallsPerSecond: number;
  readonly firstCallRaw: number;
  readonly firstCallOurs: number;
}

/** {@link AcrossEras} of two eras' figures. */
export function acrossEras(legacy: EraFigures, modern: EraFigures): AcrossEras {
  return {
    rawCallsPerSecond: round(modern.rawCallsPerSecond / legacy.rawCallsPerSecond, 3),
    clientCallsPerSecond: round(modern.clientCallsPerSecond / legacy.clientCallsPerSecond, 3),
    oursCallsPerSecond: round(modern.oursCallsPerSecond / legacy.oursCallsPerSecond, 3),
    firstCallRaw: round(modern.firstCallRawMs / legacy.firstCallRawMs, 3),
    firstCallOurs: round(modern.firstCallOursMs / legacy.firstCallOursMs, 3),
  };
}

function emptyTimes(): Record<Side, number[]> {
  return { raw: [], client: [], ours: [] };
}

/** One era's warm connection and the three ways of calling `echo` on it. */
function eraCalls(manager: McpManager, peer: EraPeer): Record<Side, () => Promise<void>> {
  const { name } = peer.config;
  const client = manager.client(name);
  const raw = client?.sdkClient;
  if (!client || !raw) throw new Error(`${peer.label} did not connect`);
  if (client.protocolVersion !== peer.era) {
    throw new Error(`${peer.label} settled on ${client.protocolVersion}, not ${peer.era}`);
  }
  const executor = pipelineFor(manager);
  const args = { server: name, tool: 'echo', arguments: ECHO_ARGS };
  return {
    raw: async () => {
      const result = await raw.callTool({ name: 'echo', arguments: { ...ECHO_ARGS } });
      if (result.isError) throw new Error('raw echo failed');
    },
    client: async () => {
      const result = await client.callToolWith('echo', { ...ECHO_ARGS }, toToolResult);
      if (!result.ok) throw new Error('client echo failed');
    },
    ours: async () => {
      const result = await executor.execute('mcp_call', args);
      if (!result.ok) throw new Error(`mcp_call failed: ${result.error.message}`);
    },
  };
}

/**
 * `pnpm bench mcp`, in both protocol eras over stdio, each against the SDK's own server:
 * server-everything (v1 SDK) for 2025-11-25, the v2 SDK's `serveStdio` echo server for
 * 2026-07-28. In each era, `mcp_call` of `echo` through the full v3 pipeline (risk gate, schema
 * validation, rate limiter, circuit breaker, run policy, trace span, remote inputSchema check)
 * against the raw v2 SDK `Client.callTool` (version negotiation pinned to the era) on the very
 * same stdio connection and server process. (Two server processes differ by up to 2x from each
 * other on a loaded 2-core machine, which would swamp the figure.) A third side,
 * `McpClient.callToolWith` alone, shows apart what the pipeline costs and what the client's direct
 * tools/call saves over the SDK's request path (in both eras; in 2026-07-28 with the era's
 * `_meta` envelope and the SDK's own result codec). Calls
 * alternate one by one, in rotating order, and the eras take turns in interleaved rounds, so noise
 * hits every side alike. First-call latency: a fresh server process per sample, from nothing
 * running to the first echo answer, each side and era in turn. `ratio` = ours / raw, at the
 * median, per era.
 */
export const mcpBench: Bench = {
  name: 'mcp',
  summary:
    'mcp_call through the full pipeline vs the raw MCP SDK client over stdio, 2025-11-25 (server-everything) and 2026-07-28 (v2 SDK server)',
  async run({ quick }) {
    const peers = eraPeers();
    const perRound = quick ? 150 : 1_000;
    const rounds = 3;
    const warmup = quick ? 200 : 1_000;
    const firstCallSamples = quick ? 2 : 5;

    const manager = new McpManager({ servers: ERAS.map((era) => peers[era].config) });
    const steady = { '2025-11-25': emptyTimes(), '2026-07-28': emptyTimes() };
    const first = { '2025-11-25': emptyTimes(), '2026-07-28': emptyTimes() };
    try {
      for (const era of ERAS) await manager.connect(peers[era].config.name);
      const calls = {
        '2025-11-25': eraCalls(manager, peers['2025-11-25']),
        '2026-07-28': eraCalls(manager, peers['2026-07-28']),
      };
      const iterate = async (era: Era, count: number, record: boolean) => {
        for (let index = 0; index < count; index += 1) {
          for (const side of ORDERS[index % ORDERS.length] as readonly Side[]) {
            const started = performance.now();
            await calls[era][side]();
            if (record) steady[era][side].push(performance.now() - started);
          }
        }
      };
      for (const era of ERAS) await iterate(era, warmup, false);
      // Interleaved rounds share the machine's noise between the eras.
      for (let round = 0; round < rounds; round += 1) {
        for (const era of ERAS) await iterate(era, perRound, true);
      }
      // First calls, in rotating side order and alternating eras, after one unmeasured round: the
      // bench's own first use of each client (module loading, cold code) is not the server's.
      for (const era of ERAS) for (const side of SIDES) await firstCallMs(peers[era], side);
      for (let sample = 0; sample < firstCallSamples; sample += 1) {
        for (const era of ERAS) {
          for (const side of ORDERS[sample % ORDERS.length] as readonly Side[]) {
            first[era][side].push(await firstCallMs(peers[era], side));
          }
        }
      }
    } finally {
      await manager.close();
    }

    const legacy = eraFigures(steady['2025-11-25'], first['2025-11-25']);
    const modern = eraFigures(steady['2026-07-28'], first['2026-07-28']);
    const eraLines = (era: Era, figures: EraFigures) => [
      `${era}: ${figures.calls} echo calls each over one stdio connection to ${peers[era].label} (alternating call by call)`,
      `  raw SDK client:          mean ${figures.rawMeanMs} ms (${figures.rawCallsPerSecond} calls/s), p50 ${figures.rawP50Ms} ms, p99 ${figures.rawP99Ms} ms; first call ${figures.firstCallRawMs} ms`,
      `  McpClient alone:         mean ${figures.clientMeanMs} ms (${figures.clientCallsPerSecond} calls/s), p50 ${figures.clientP50Ms} ms (direct tools/call saves ${figures.directSavesUs} µs); first call ${figures.firstCallClientMs} ms`,
      `  mcp_call, full pipeline: mean ${figures.oursMeanMs} ms (${figures.oursCallsPerSecond} calls/s), p50 ${figures.oursP50Ms} ms, p99 ${figures.oursP99Ms} ms (pipeline adds ${figures.pipelineUs} µs); first call ${figures.firstCallOursMs} ms`,
      `  ratio (ours / raw, p50): ${formatRatio(figures.ratio)}; mean ratio ${formatRatio(figures.meanRatio)}; first call ${formatRatio(figures.firstCallRatio)}`,
    ];
    const across = acrossEras(legacy, modern);
    return {
      name: 'mcp',
      target: `ratio <= ${TARGET_RATIO.toFixed(2)} in each era (ours / raw, p50 of warm calls); first calls reported`,
      met: legacy.ratio <= TARGET_RATIO && modern.ratio <= TARGET_RATIO,
      lines: [
        ...eraLines('2025-11-25', legacy),
        ...eraLines('2026-07-28', modern),
        `side by side (ours / raw): calls p50 ${formatRatio(legacy.ratio)} | ${formatRatio(modern.ratio)}, first call ${formatRatio(legacy.firstCallRatio)} | ${formatRatio(modern.firstCallRatio)} (2025-11-25 | 2026-07-28); ${rounds} interleaved rounds, ${firstCallSamples} first calls per side and era`,
        `2026-07-28 over 2025-11-25: raw calls/s ${formatRatio(across.rawCallsPerSecond)}, ours calls/s ${formatRatio(across.oursCallsPerSecond)}, raw first call ${formatRatio(across.firstCallRaw)}, ours first call ${formatRatio(across.firstCallOurs)}`,
      ],
      json: {
        ratio: legacy.ratio,
        modernRatio: modern.ratio,
        firstCallRatio: legacy.firstCallRatio,
        modernFirstCallRatio: modern.firstCallRatio,
        rounds,
        firstCallSamples,
        eras: {
          '2025-11-25': { server: peers['2025-11-25'].label, ...legacy },
          '2026-07-28': { server: peers['2026-07-28'].label, ...modern },
        },
        modernOverLegacy: across,
      },
    };
  },
};

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
