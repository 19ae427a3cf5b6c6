import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { removeOnExit } from '../cleanup.js';
import { connectHttpClient } from '../http-client.js';
import { freePort, startHostHttp, waitForOutput } from '../processes.js';
import { type Bench, formatRatio } from '../report.js';

const TARGET_RATIO = 1.5;
const LIMIT_BOUNDS = [0.97, 1.03] as const;
const CONCURRENCY = 4;
/** The quota of the limit-accuracy phase, calls a minute. */
const QUOTA = 600;

/** Starts `toolsys serve --http` with `extra` config; resolves with its MCP URL. */
async function startReplica(
  scratch: string,
  name: string,
  extra: Record<string, unknown>,
  children: ChildProcess[],
): Promise<string> {
  const config = join(scratch, `${name}.config.json`);
  writeFileSync(
    config,
    JSON.stringify({
      dataDir: join(scratch, `data-${name}`),
      packages: { 'mcp-client': { enabled: false }, 'cs-mem': { enabled: false } },
      tools: {
        runPolicies: {
          // Rate-limited, with a quota never reached: every call pays the limiter's decision.
          text_transform: { ratePerMinute: 100_000_000 },
          calculate: { ratePerMinute: QUOTA },
        },
      },
      ...extra,
    }),
  );
  const { child, url } = await startHostHttp(config, scratch, `replica ${name}`);
  children.push(child);
  return url;
}

async function connect(url: string, clients: Client[]): Promise<Client> {
  const client = await connectHttpClient(url);
  clients.push(client);
  return client;
}

/**
 * Runs `calls` tools/call requests spread over `targets` with {@link CONCURRENCY} in flight in
 * total; returns the elapsed ms and how many calls succeeded.
 */
async function drive(
  targets: readonly Client[],
  tool: string,
  args: (index: number) => Record<string, unknown>,
  calls: number,
): Promise<{ elapsedMs: number; ok: number }> {
  let next = 0;
  let ok = 0;
  const started = performance.now();
  const worker = async (slot: number) => {
    const client = targets[slot % targets.length] as Client;
    while (next < calls) {
      const index = next;
      next += 1;
      const result = await client.callTool({ name: tool, arguments: args(index) });
      if (!result.isError) ok += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, slot) => worker(slot)));
  return { elapsedMs: performance.now() - started, ok };
}

/**
 * `pnpm bench scale`: tools/call cost of two replicas sharing Redis against one replica alone (same
 * machine, same client), and how exactly the shared limiter admits its quota across replicas.
 */
export const scaleBench: Bench = {
  name: 'scale',
  summary: 'two replicas sharing Redis vs one alone: per-call cost and rate-limit accuracy',
  async run({ quick }) {
    const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-scale-')));
    const children: ChildProcess[] = [];
    const clients: Client[] = [];
    try {
      const port = await freePort();
      const redis = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
        ],
        { stdio: 'pipe' },
      );
      children.push(redis);
      await waitForOutput(redis, /Ready to accept connections/, 'redis-server');
      const state = { redis: { url: `redis://127.0.0.1:${port}`, keyPrefix: 'bench:' } };
      const [aloneUrl, aUrl, bUrl] = await Promise.all([
        startReplica(scratch, 'alone', {}, children),
        startReplica(
          scratch,
          'a',
          { state: { redis: { ...state.redis, replicaId: 'a' } } },
          children,
        ),
        startReplica(
          scratch,
          'b',
          { state: { redis: { ...state.redis, replicaId: 'b' } } },
          children,
        ),
      ]);
      const alone = [await connect(aloneUrl, clients)];
      const shared = [await connect(aUrl, clients), await connect(bUrl, clients)];
      const args = (index: number) => ({ text: `message ${index}`, operation: 'trim' });
      const warmup = quick ? 50 : 300;
      const perRound = quick ? 200 : 1_000;
      const rounds = 3;
      await drive(alone, 'text_transform', args, warmup);
      await drive(shared, 'text_transform', args, warmup);
      const totals = { alone: 0, shared: 0, calls: 0 };
      // Interleaved rounds share the machine's noise between the two set-ups.
      for (let round = 0; round < rounds; round += 1) {
        totals.alone += (await drive(alone, 'text_transform', args, perRound)).elapsedMs;
        totals.shared += (await drive(shared, 'text_transform', args, perRound)).elapsedMs;
        totals.calls += perRound;
      }
      const aloneMsPerCall = totals.alone / totals.calls;
      const sharedMsPerCall = totals.shared / totals.calls;
      const ratio = sharedMsPerCall / aloneMsPerCall;

      // Limit accuracy: both replicas hammer a tool with a quota; a full bucket of QUOTA tokens
      // plus the refill over the run is what they may admit together.
      const attempts = quick ? 1_200 : 2_400;
      const calculation = () => ({ expression: '1+1' });
      // calculate runs in each replica's worker pool: start its threads first, or the burst's first
      // seconds go to thread start-up while the full bucket's refill is lost. Then wait until the
      // few tokens this took are back (QUOTA / 60 a second).
      await drive(shared, 'calculate', calculation, 16);
      await new Promise((resolve) => setTimeout(resolve, (16 / (QUOTA / 60)) * 1_000 + 500));
      const burst = await drive(shared, 'calculate', calculation, attempts);
      const limit = QUOTA + (QUOTA * burst.elapsedMs) / 60_000;
      const limitError = burst.ok / limit;
      const limitMet = limitError >= LIMIT_BOUNDS[0] && limitError <= LIMIT_BOUNDS[1];
      return {
        name: 'scale',
        target: `ratio <= ${TARGET_RATIO} (shared-state / alone per-call cost); limitError within ${LIMIT_BOUNDS[0]}-${LIMIT_BOUNDS[1]}`,
        met: ratio <= TARGET_RATIO && limitMet,
        lines: [
          `one replica alone            ${(1000 / aloneMsPerCall).toFixed(0).padStart(6)} calls/s  ${(aloneMsPerCall * 1000).toFixed(0)} µs per call`,
          `two replicas sharing Redis   ${(1000 / sharedMsPerCall).toFixed(0).padStart(6)} calls/s  ${(sharedMsPerCall * 1000).toFixed(0)} µs per call`,
          `ratio ${formatRatio(ratio)} (${CONCURRENCY} calls in flight, ${rounds} interleaved rounds)`,
          `limit: ${burst.ok} admitted of ${attempts} attempts against ${limit.toFixed(1)} allowed (${QUOTA}/min over ${(burst.elapsedMs / 1000).toFixed(1)} s) → limitError ${limitError.toFixed(3)}`,
        ],
        json: {
          ratio,
          limitError,
          aloneCallsPerSecond: 1000 / aloneMsPerCall,
          sharedCallsPerSecond: 1000 / sharedMsPerCall,
          addedMsPerCall: sharedMsPerCall - aloneMsPerCall,
          admitted: burst.ok,
          allowed: limit,
          concurrency: CONCURRENCY,
        },
      };
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      for (const child of children) {
        if (child.pid !== undefined && child.exitCode === null) child.kill('SIGTERM');
      }
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
