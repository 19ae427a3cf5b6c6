import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  EnhancedToolExecutor,
  RiskAwareToolGate,
  ToolCircuitBreaker,
  ToolPermissionManager,
  ToolRateLimiter,
  ToolRegistry,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import { createMcpTools, McpManager } from '@toolsys/mcp-client';
import { type Bench, formatRatio, percentile } from '../report.js';

const TARGET_RATIO = 1.1;
const PAIR_RAW_FIRST = ['raw', 'ours'] as const;
const PAIR_OURS_FIRST = ['ours', 'raw'] as const;

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
 * which would swamp the figure.) Calls alternate one by one, order flipped every other pair, so
 * noise hits both sides alike. `ratio` = ours / raw, at the median.
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
      const executor = new EnhancedToolExecutor({
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
      const raw = manager.client('everything')?.sdkClient;
      if (!raw) throw new Error('server-everything did not connect');
      const args = { server: 'everything', tool: 'echo', arguments: { message: 'bench' } };
      const callRaw = async () => {
        const result = await raw.callTool({ name: 'echo', arguments: { message: 'bench' } });
        if (result.isError) throw new Error('raw echo failed');
      };
      const callOurs = async () => {
        const result = await executor.execute('mcp_call', args);
        if (!result.ok) throw new Error(`mcp_call failed: ${result.error.message}`);
      };
      for (let index = 0; index < warmup; index += 1) {
        await callRaw();
        await callOurs();
      }
      const rawTimes: number[] = [];
      const ourTimes: number[] = [];
      // Calls alternate one by one (order flipped every other pair) so noise on this shared
      // machine hits both sides alike.
      for (let index = 0; index < iterations; index += 1) {
        const pair = index % 2 === 0 ? PAIR_RAW_FIRST : PAIR_OURS_FIRST;
        for (const side of pair) {
          const started = performance.now();
          await (side === 'raw' ? callRaw() : callOurs());
          (side === 'raw' ? rawTimes : ourTimes).push(performance.now() - started);
        }
      }
      const rawSorted = [...rawTimes].sort((a, b) => a - b);
      const ourSorted = [...ourTimes].sort((a, b) => a - b);
      const rawMean = rawTimes.reduce((sum, value) => sum + value, 0) / rawTimes.length;
      const ourMean = ourTimes.reduce((sum, value) => sum + value, 0) / ourTimes.length;
      // Medians: a few GC pauses or a neighbour's burst would otherwise decide the figure.
      const ratio = percentile(ourSorted, 0.5) / percentile(rawSorted, 0.5);
      const figures = {
        calls: rawTimes.length,
        rawMeanMs: round(rawMean),
        oursMeanMs: round(ourMean),
        rawP50Ms: round(percentile(rawSorted, 0.5)),
        oursP50Ms: round(percentile(ourSorted, 0.5)),
        rawP99Ms: round(percentile(rawSorted, 0.99)),
        oursP99Ms: round(percentile(ourSorted, 0.99)),
      };
      return {
        name: 'mcp',
        target: `ratio <= ${TARGET_RATIO.toFixed(2)}`,
        met: ratio <= TARGET_RATIO,
        lines: [
          `${figures.calls} echo calls each over one stdio connection to server-everything (alternating call by call)`,
          `raw SDK client:          mean ${figures.rawMeanMs} ms, p50 ${figures.rawP50Ms} ms, p99 ${figures.rawP99Ms} ms`,
          `mcp_call, full pipeline: mean ${figures.oursMeanMs} ms, p50 ${figures.oursP50Ms} ms, p99 ${figures.oursP99Ms} ms`,
          `ratio (ours / raw, p50): ${formatRatio(ratio)}; mean ratio ${formatRatio(ourMean / rawMean)}`,
        ],
        json: { ratio: round(ratio, 3), meanRatio: round(ourMean / rawMean, 3), ...figures },
      };
    } finally {
      await manager.close();
    }
  },
};

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
