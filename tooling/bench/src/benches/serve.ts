import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '@toolsys/test-support';
import { removeOnExit } from '../cleanup.js';
import { connectHttpClient, connectModernHttpClient } from '../http-client.js';
import { startHostHttp, waitForOutput } from '../processes.js';
import { type Bench, formatRatio, percentile } from '../report.js';

const TARGET_RATIO = 0.9;
const CONCURRENCY = 4;

/** Preloaded into server-everything: it binds every interface, the bench allows loopback only. */
const LOOPBACK_PRELOAD = `
import http from 'node:http';
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (port, ...rest) {
  if (typeof port === 'number' || typeof port === 'string') {
    const callback = rest.find((value) => typeof value === 'function');
    return listen.call(this, Number(port), '127.0.0.1', callback);
  }
  return listen.call(this, port, ...rest);
};
`;

/** What the bench needs of a client, of either SDK. */
interface BenchClient {
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
  }): Promise<{ isError?: unknown; content?: unknown }>;
  close(): Promise<void>;
}

/** The protocol era a side's client speaks. */
type Era = '2025-11-25' | '2026-07-28';

interface Peer {
  readonly name: string;
  readonly url: string;
  readonly tool: string;
  readonly args: (index: number) => Record<string, unknown>;
  readonly process: ChildProcess;
}

async function startToolsys(scratch: string): Promise<Peer> {
  const config = join(scratch, 'toolsys.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      dataDir: join(scratch, 'data'),
      packages: { 'mcp-client': { enabled: false }, 'cs-mem': { enabled: false } },
      // The bench measures the server, not the quickRead rate limit.
      tools: { runPolicies: { text_transform: { ratePerMinute: null } } },
    }),
  );
  const { child, url } = await startHostHttp(config, scratch, 'toolsys serve --http');
  return {
    name: 'toolsys serve --http',
    url,
    tool: 'text_transform',
    args: (index) => ({ text: `message ${index}`, operation: 'trim' }),
    process: child,
  };
}

async function startEverything(scratch: string): Promise<Peer> {
  const require = createRequire(import.meta.url);
  const entry = join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
  const preload = join(scratch, 'loopback-preload.mjs');
  writeFileSync(preload, LOOPBACK_PRELOAD);
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', preload, entry, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'pipe',
  });
  // It logs every request on stdout: waitForOutput keeps the pipe drained.
  await waitForOutput(child, /listening on port/, 'server-everything');
  return {
    name: 'server-everything streamableHttp',
    url: `http://127.0.0.1:${port}/mcp`,
    tool: 'echo',
    args: (index) => ({ message: `message ${index}` }),
    process: child,
  };
}

/** The v2 SDK's own server (`createMcpHandler`, one `echo` tool): the peer in both eras. */
async function startSdkV2(): Promise<Peer> {
  const entry = join(import.meta.dirname, '..', '..', 'peers', 'sdk-v2-echo-server.mjs');
  const child = spawn(process.execPath, [entry, '0'], { stdio: 'pipe' });
  const match = await waitForOutput(child, /listening on port (\d+)/, 'SDK v2 server');
  return {
    name: 'SDK v2 createMcpHandler',
    url: `http://127.0.0.1:${match[1]}/mcp`,
    tool: 'echo',
    args: (index) => ({ message: `message ${index}` }),
    process: child,
  };
}

/** One measured pairing: a server and the era its client speaks. */
interface Side {
  readonly peer: Peer;
  readonly era: Era;
  readonly client: BenchClient;
}

async function connect(peer: Peer, era: Era): Promise<Side> {
  const client: BenchClient =
    era === '2025-11-25'
      ? ((await connectHttpClient(peer.url)) as unknown as BenchClient)
      : ((await connectModernHttpClient(peer.url)) as unknown as BenchClient);
  return { peer, era, client };
}

/** Runs `calls` tools/call requests with {@link CONCURRENCY} in flight; returns ms per call. */
async function drive(
  { client, peer }: Side,
  calls: number,
): Promise<{ elapsedMs: number; latencies: number[] }> {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const worker = async () => {
    while (next < calls) {
      const index = next;
      next += 1;
      const before = performance.now();
      const result = await client.callTool({ name: peer.tool, arguments: peer.args(index) });
      latencies.push(performance.now() - before);
      if (result.isError)
        throw new Error(`${peer.name} failed a call: ${JSON.stringify(result.content)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { elapsedMs: performance.now() - started, latencies };
}

/** `pnpm bench serve`: tools/call throughput of `toolsys serve --http` against the SDKs' servers, both eras. */
export const serveBench: Bench = {
  name: 'serve',
  summary:
    'tools/call throughput: toolsys serve --http vs server-everything (2025-11-25) and the v2 SDK server (2026-07-28)',
  async run({ quick }) {
    const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-serve-')));
    const peers: Peer[] = [];
    const sides: Side[] = [];
    try {
      const toolsys = await startToolsys(scratch);
      peers.push(toolsys);
      const everything = await startEverything(scratch);
      peers.push(everything);
      const sdk = await startSdkV2();
      peers.push(sdk);
      // Pairs of sides: ours first, the peer second, per era.
      sides.push(
        await connect(toolsys, '2025-11-25'),
        await connect(everything, '2025-11-25'),
        await connect(toolsys, '2026-07-28'),
        await connect(sdk, '2026-07-28'),
      );
      const warmup = quick ? 50 : 300;
      const perRound = quick ? 200 : 1_000;
      const rounds = 3;
      const totals = sides.map(() => ({ elapsedMs: 0, calls: 0, latencies: [] as number[] }));
      for (const side of sides) await drive(side, warmup);
      // Interleaved rounds share the machine's noise between the servers.
      for (let round = 0; round < rounds; round += 1) {
        for (const [index, side] of sides.entries()) {
          const run = await drive(side, perRound);
          const total = totals[index] as (typeof totals)[number];
          total.elapsedMs += run.elapsedMs;
          total.calls += perRound;
          total.latencies.push(...run.latencies);
        }
      }
      const figures = sides.map((side, index) => {
        const total = totals[index] as (typeof totals)[number];
        const latencies = [...total.latencies].sort((a, b) => a - b);
        return {
          server: side.peer.name,
          era: side.era,
          tool: side.peer.tool,
          calls: total.calls,
          callsPerSecond: (total.calls / total.elapsedMs) * 1000,
          p50Ms: percentile(latencies, 0.5),
          p99Ms: percentile(latencies, 0.99),
        };
      });
      type Figure = (typeof figures)[number];
      const [ours, theirs, oursModern, theirsModern] = figures as [Figure, Figure, Figure, Figure];
      const ratio = ours.callsPerSecond / theirs.callsPerSecond;
      const modernRatio = oursModern.callsPerSecond / theirsModern.callsPerSecond;
      return {
        name: 'serve',
        target: `ratio >= ${TARGET_RATIO} in each era (toolsys calls/s over the peer's calls/s)`,
        met: ratio >= TARGET_RATIO && modernRatio >= TARGET_RATIO,
        lines: [
          ...figures.map(
            (figure) =>
              `${figure.era} ${figure.server.padEnd(34)} ${figure.tool.padEnd(15)} ${figure.callsPerSecond.toFixed(0).padStart(6)} calls/s  p50 ${figure.p50Ms.toFixed(2)} ms  p99 ${figure.p99Ms.toFixed(2)} ms`,
          ),
          `ratio 2025-11-25 ${formatRatio(ratio)} (vs server-everything), 2026-07-28 ${formatRatio(modernRatio)} (vs the v2 SDK server); ${CONCURRENCY} calls in flight, ${rounds} interleaved rounds`,
        ],
        json: {
          ratio,
          modernRatio,
          concurrency: CONCURRENCY,
          ours,
          theirs,
          oursModern,
          theirsModern,
        },
      };
    } finally {
      for (const side of sides) await side.client.close().catch(() => {});
      for (const peer of peers) peer.process.kill();
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
