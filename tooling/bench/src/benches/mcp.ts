import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  createToolExecutor,
  RiskAwareToolGate,
  ToolCircuitBreaker,
  ToolPermissionManager,
  ToolRateLimiter,
  ToolRegistry,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { createMcpTools, McpManager, toToolResult } from '@toolsys/mcp-client';
import { type Bench, formatRatio, percentile } from '../report.js';

const TARGET_RATIO = 1.1;
type Side = 'raw' | 'client' | 'ours';
/** Each round calls every side once, in an order that rotates, so no side is always first. */
const ORDERS: readonly (readonly Side[])[] = [
  ['raw', 'client', 'ours'],
  ['ours', 'raw', 'client'],
  ['client', 'ours', 'raw'],
  ['raw', 'ours', 'client'],
  ['client', 'raw', 'ours'],
  ['ours', 'client', 'raw'],
];

function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  return join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
}

/**
 * `pnpm bench mcp`: `mcp_call` of server-everything's echo through the full v3 pipeline (risk gate,
 * schema validation, rate limiter, circuit breaker, run policy, trace span, remote inputSchema
 * check) against the raw SDK `Client.callTool` on the very same stdio connection and server
 * process. (Two server processes differ by up to 2x from each other on a loaded 2-core machine,
 * which would swamp the figure.) A third side, `McpClient.callToolWith` alone, shows apart what
 * the pipeline costs and what the client's direct tools/call saves. Calls alternate one by one,
 * in rotating order, so noise hits every side alike. `ratio` = ours / raw, at the median.
 */
export const mcpBench: Bench = {
  name: 'mcp',
  summary: 'mcp_call through the full pipeline vs the raw MCP SDK client (server-everything echo)',
  async run({ quick }) {
    const entry = everythingEntry();
    const iterations = quick ? 400 : 3_000;
    const warmup = quick ? 200 : 1_000;

    const manager = new McpManager({
      servers: [
        {
          name: 'everything',
          transport: 'stdio',
          command: process.execPath,
          args: [entry, 'stdio'],
        },
      ],
    });
    try {
      const registry = new ToolRegistry();
      registry.registerAll(createMcpTools({ manager }), { policy: 'REJECT', owner: 'bench' });
      const executor = createToolExecutor({
        registry,
        gate: new RiskAwareToolGate(
          new ToolPermissionManager({ policy: { MEDIUM: 'allow', HIGH: 'allow' } }),
        ),
        rateLimiter: new ToolRateLimiter(),
        circuitBreaker: new ToolCircuitBreaker(),
        traces: new ToolTraceRecorder(),
        runPolicies: {},
      });
      await manager.connect('everything');
      const client = manager.client('everything');
      const raw = client?.sdkClient;
      if (!client || !raw) throw new Error('server-everything did not connect');
      const args = { server: 'everything', tool: 'echo', arguments: { message: 'bench' } };
      const callRaw = async () => {
        const result = await raw.callTool({ name: 'echo', arguments: { message: 'bench' } });
        if (result.isError) throw new Error('raw echo failed');
      };
      const callOurs = async () => {
        const result = await executor.execute('mcp_call', args);
        if (!result.ok) throw new Error(`mcp_call failed: ${result.error.message}`);
      };
      const callClient = async () => {
        const result = await client.callToolWith('echo', { message: 'bench' }, toToolResult);
        if (!result.ok) throw new Error('client echo failed');
      };
      const calls: Record<Side, () => Promise<void>> = {
        raw: callRaw,
        client: callClient,
        ours: callOurs,
      };
      const times: Record<Side, number[]> = { raw: [], client: [], ours: [] };
      for (let index = 0; index < warmup + iterations; index += 1) {
        for (const side of ORDERS[index % ORDERS.length] as readonly Side[]) {
          const started = performance.now();
          await calls[side]();
          if (index >= warmup) times[side].push(performance.now() - started);
        }
      }
      const ordered: Record<Side, number[]> = {
        raw: sorted(times.raw),
        client: sorted(times.client),
        ours: sorted(times.ours),
      };
      const median = (side: Side) => percentile(ordered[side], 0.5);
      const mean = (side: Side) =>
        times[side].reduce((sum, value) => sum + value, 0) / times[side].length;
      const rawMean = mean('raw');
      const ourMean = mean('ours');
      // Medians: a few GC pauses or a neighbour's burst would otherwise decide the figure.
      const ratio = median('ours') / median('raw');
      const figures = {
        calls: times.raw.length,
        rawMeanMs: round(rawMean),
        oursMeanMs: round(ourMean),
        clientMeanMs: round(mean('client')),
        rawP50Ms: round(median('raw')),
        oursP50Ms: round(median('ours')),
        clientP50Ms: round(median('client')),
        rawP99Ms: round(percentile(ordered.raw, 0.99)),
        oursP99Ms: round(percentile(ordered.ours, 0.99)),
        /** What the pipeline adds to the client alone, at the median, in µs. */
        pipelineUs: round((median('ours') - median('client')) * 1000, 1),
        /** What the client's direct tools/call saves over the SDK's request path, in µs. */
        directSavesUs: round((median('raw') - median('client')) * 1000, 1),
      };
      return {
        name: 'mcp',
        target: `ratio <= ${TARGET_RATIO.toFixed(2)}`,
        met: ratio <= TARGET_RATIO,
        lines: [
          `${figures.calls} echo calls each over one stdio connection to server-everything (alternating call by call)`,
          `raw SDK client:          mean ${figures.rawMeanMs} ms, p50 ${figures.rawP50Ms} ms, p99 ${figures.rawP99Ms} ms`,
          `McpClient alone:         mean ${figures.clientMeanMs} ms, p50 ${figures.clientP50Ms} ms (direct tools/call saves ${figures.directSavesUs} µs)`,
          `mcp_call, full pipeline: mean ${figures.oursMeanMs} ms, p50 ${figures.oursP50Ms} ms, p99 ${figures.oursP99Ms} ms (pipeline adds ${figures.pipelineUs} µs)`,
          `ratio (ours / raw, p50): ${formatRatio(ratio)}; mean ratio ${formatRatio(ourMean / rawMean)}`,
        ],
        json: { ratio: round(ratio, 3), meanRatio: round(ourMean / rawMean, 3), ...figures },
      };
    } finally {
      await manager.close();
    }
  },
};

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
