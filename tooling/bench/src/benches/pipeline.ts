import {
  createToolExecutor,
  defineTool,
  RiskAwareToolGate,
  ToolCircuitBreaker,
  type ToolContext,
  ToolEnvironmentGate,
  ToolEnvironmentState,
  ToolHints,
  ToolPermissionManager,
  ToolRateLimiter,
  ToolRegistry,
  type ToolRunPolicy,
  ToolSchema,
  ToolTraceRecorder,
} from '@toolsys/core-tool-registry';
import {
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleAll,
  retry,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import { z } from 'zod';
import { type Bench, type BenchReport, formatRatio } from '../report.js';

const TARGET_RATIO = 1.0;

/** A policy like quickRead, with a quota high enough that the limiter runs but never refuses. */
const BENCH_POLICY: ToolRunPolicy = {
  name: 'bench',
  timeoutMs: 30_000,
  maxRetries: 1,
  ratePerMinute: 1e12,
  backoffBaseMs: 200,
  backoffMaxMs: 2_000,
};

const shape = {
  text: z.string().describe('Any text.'),
  count: z.number().int().min(0).default(1).describe('A number.'),
};
const ARGS = { text: 'hello', count: 2 };

/** The no-op function every side calls. */
function noop(args: { text: string; count: number }): string {
  return args.text.length + args.count > 0 ? 'ok' : 'empty';
}

type Side = () => Promise<unknown>;

function createOurs(): Side {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      id: 'noop',
      description: 'Does nothing.',
      inputSchema: ToolSchema.object(shape),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      runPolicy: BENCH_POLICY,
      execute: (args) => noop(args),
    }),
  );
  const executor = createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(new ToolPermissionManager()),
    environmentGate: new ToolEnvironmentGate({ state: new ToolEnvironmentState() }),
    rateLimiter: new ToolRateLimiter(),
    circuitBreaker: new ToolCircuitBreaker(),
    traces: new ToolTraceRecorder(),
    runPolicies: {},
  });
  return () => executor.execute('noop', ARGS);
}

function createDirect(): Side {
  const tool = defineTool({
    id: 'noop',
    description: 'Does nothing.',
    inputSchema: ToolSchema.object(shape),
    metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
    execute: (args) => noop(args),
  });
  const context: ToolContext = {
    callId: 'c',
    sessionId: 's',
    attempt: 1,
    signal: new AbortController().signal,
    emit: () => {},
    confirm: async () => 'deny',
  };
  return async () => tool.execute(ARGS, context);
}

function createCockatiel(): Side {
  const schema = z.object(shape);
  const policy = wrap(
    retry(handleAll, { maxAttempts: 1, backoff: new ExponentialBackoff() }),
    circuitBreaker(handleAll, { halfOpenAfter: 30_000, breaker: new ConsecutiveBreaker(5) }),
    timeout(30_000, TimeoutStrategy.Cooperative),
  );
  return () => policy.execute(() => noop(schema.parse(ARGS)));
}

async function timeSide(side: Side, iterations: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < iterations; index += 1) await side();
  return Number(process.hrtime.bigint() - started) / iterations;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * `pnpm bench pipeline`: per-call cost of the full v3 executor (environment gate, risk gate, schema,
 * rate limiter, breaker, timeout + retry, tracing) on a no-op tool, of a direct call, and of
 * cockatiel's `wrap(retry, circuitBreaker, timeout)` around the same function plus a zod parse.
 * The three sides run interleaved in rounds in one process; the figure is the median round.
 */
export const pipelineBench: Bench = {
  name: 'pipeline',
  summary:
    'full v3 executor vs direct call vs cockatiel wrap(retry, circuitBreaker, timeout) + zod',
  async run({ quick }): Promise<BenchReport> {
    const rounds = quick ? 5 : 15;
    const iterations = quick ? 2_000 : 20_000;
    const sides = { ours: createOurs(), direct: createDirect(), cockatiel: createCockatiel() };
    for (const side of Object.values(sides)) await timeSide(side, iterations);
    const samples: Record<keyof typeof sides, number[]> = { ours: [], direct: [], cockatiel: [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = (['ours', 'direct', 'cockatiel'] as const).slice();
      // Rotate the order each round so no side always runs first after a GC.
      for (let shift = 0; shift < round % 3; shift += 1) order.push(order.shift() as never);
      for (const name of order) samples[name].push(await timeSide(sides[name], iterations));
    }
    const oursNs = median(samples.ours);
    const directNs = median(samples.direct);
    const cockatielNs = median(samples.cockatiel);
    const ratio = oursNs / cockatielNs;
    const met = ratio <= TARGET_RATIO;
    const micro = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
    return {
      name: 'pipeline',
      target: `ratio (ours / cockatiel per-call cost) <= ${TARGET_RATIO.toFixed(1)}`,
      met,
      lines: [
        `no-op tool, ${rounds} interleaved rounds of ${iterations.toLocaleString('en-US')} sequential awaited calls per side; median round`,
        `ours       ${micro(oursNs)} per call  (PipelineToolExecutor: env gate, risk gate, zod schema, limiter, breaker, 30 s timeout + retry policy, trace span, usage)`,
        `direct     ${micro(directNs)} per call  (await tool.execute(args, context))`,
        `cockatiel  ${micro(cockatielNs)} per call  (wrap(retry, circuitBreaker, timeout(30 s, cooperative)).execute(() => fn(zod.parse(args))))`,
        `ratio ours/cockatiel: ${formatRatio(ratio)} (target <= ${TARGET_RATIO.toFixed(1)}); ours/direct: ${formatRatio(oursNs / directNs)}`,
      ],
      json: {
        ratio: Number(ratio.toFixed(3)),
        oursNsPerCall: Math.round(oursNs),
        directNsPerCall: Math.round(directNs),
        cockatielNsPerCall: Math.round(cockatielNs),
        rounds,
        iterations,
        node: process.version,
      },
    };
  },
};
