import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SHARED_QUOTA_CALLERS } from '@toolsys/core-tool-registry';
import { freePort, startHaproxy } from '@toolsys/test-support';
import { removeOnExit } from '../cleanup.js';
import { connectHttpClient, connectModernHttpClient } from '../http-client.js';
import { startHostHttp, waitForOutput } from '../processes.js';
import { type Bench, formatRatio } from '../report.js';
import { ServedBy } from '../served-by.js';

const TARGET_RATIO = 1.5;
/**
 * The least a replica may serve of the 2026-07-28 calls behind HAProxy, over an even share: round
 * robin with six calls in flight spreads them about evenly, stickiness would leave one at 0.
 */
const MIN_EVENNESS = 0.5;
const LIMIT_BOUNDS = [0.97, 1.03] as const;
/** Calls in flight in total: two sessions per replica behind the load balancer. */
const CONCURRENCY = 6;
/**
 * The quota all sessions share in each limit-accuracy phase, calls a minute (one tool per phase,
 * fresh buckets). Each session's own quota (the configured rate) is a `SHARED_QUOTA_CALLERS`th of
 * it, so the six sessions together could take more: the shared quota is what holds them.
 */
const QUOTA = 600;
const REPLICAS = ['a', 'b', 'c'] as const;
/** A call taking longer than this counts as hung. */
const HUNG_MS = 15_000;

/** Tool of each limit phase and its arguments. */
const PHASE_TOOLS = {
  quiet: { tool: 'version_compare', args: () => ({ a: '1.2.3', b: '1.2.4' }) },
  loaded: { tool: 'get_time', args: () => ({}) },
  outage: { tool: 'json_transform', args: () => ({ input: { a: 1 }, operations: [] }) },
} as const;

interface Replica {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
}

/** Starts `toolsys serve --http` with `extra` config. */
async function startReplica(
  scratch: string,
  name: string,
  extra: Record<string, unknown>,
): Promise<Replica> {
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
          ...Object.fromEntries(
            Object.values(PHASE_TOOLS).map(({ tool }) => [
              tool,
              { ratePerMinute: QUOTA / SHARED_QUOTA_CALLERS },
            ]),
          ),
        },
      },
      ...extra,
    }),
  );
  // Four replicas start at once on a machine that may be saturated: give them time.
  const { child, url } = await startHostHttp(config, scratch, `replica ${name}`, 240_000);
  return { name, child, url };
}

/** What the bench needs of a client of either SDK and era: calls and an end. */
interface CallingClient {
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
  }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

interface Driven {
  elapsedMs: number;
  ok: number;
  failed: number;
  /** Calls that ended in a transport or protocol error (not a tool result), with the first one. */
  errors: number;
  firstError?: string;
}

/**
 * Runs `calls` tools/call requests spread over `targets` with one worker per target; returns the
 * elapsed ms and how many calls succeeded. `onProgress` sees the count of calls started.
 */
async function drive(
  targets: readonly CallingClient[],
  tool: string,
  args: (index: number) => Record<string, unknown>,
  calls: number,
  onProgress?: (started: number) => void,
): Promise<Driven> {
  let next = 0;
  let ok = 0;
  let failed = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const worker = async (client: CallingClient) => {
    while (next < calls) {
      const index = next;
      next += 1;
      onProgress?.(next);
      try {
        const result = await client.callTool({ name: tool, arguments: args(index) });
        if (!result.isError) ok += 1;
        else failed += 1;
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? error.message.slice(0, 300) : String(error);
      }
    }
  };
  await Promise.all(targets.map((client) => worker(client)));
  return {
    elapsedMs: performance.now() - started,
    ok,
    failed,
    errors,
    ...(firstError ? { firstError } : {}),
  };
}

function sessionOf(client: Client): string {
  return (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId ?? '';
}

/** One line of the per-call cost table. */
function costLine(label: string, msPerCall: number): string {
  return `${label.padEnd(42)} ${(1000 / msPerCall).toFixed(0).padStart(6)} calls/s  ${(msPerCall * 1000).toFixed(0)} µs per call`;
}

/** How one call ended in the replica-kill phase. */
type Outcome = 'ok' | 'tool-error' | 'hung' | `error: ${string}`;

async function callBounded(client: CallingClient): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve('hung'), HUNG_MS);
  });
  const call = client
    .callTool({ name: 'text_transform', arguments: { text: 'kill', operation: 'trim' } })
    .then(
      (result): Outcome => (result.isError ? 'tool-error' : 'ok'),
      (error: unknown): Outcome =>
        `error: ${error instanceof Error ? error.message : String(error)}`,
    );
  const outcome = await Promise.race([call, hung]);
  clearTimeout(timer);
  return outcome;
}

/** What a killed replica's session was told, in a short label. */
function classify(outcome: Outcome): string {
  if (outcome === 'hung') return 'hung';
  if (/Session lost: session .* was opened on replica/.test(outcome)) {
    return '404 session lost, initialize again (from a surviving replica)';
  }
  if (/Session lost: the replica serving this request stopped/.test(outcome)) {
    return '502 replica stopped mid-request, initialize again (from HAProxy)';
  }
  return outcome.slice(0, 160);
}

/**
 * `pnpm bench scale`: tools/call cost of three replicas sharing Redis behind HAProxy (the shipped
 * deploy/haproxy.cfg) against one replica alone, in both protocol eras (2025-11-25 sessions, sticky
 * to the replica that opened them; 2026-07-28 stateless calls, spread round robin, counted by the
 * replica HAProxy names), how exactly the shared limiter admits its quota across them (quiet, with
 * every core saturated by a competing process, and with Redis stopped for part of the burst), and
 * what happens to calls of either era when one replica is SIGKILLed mid-run.
 */
export const scaleBench: Bench = {
  name: 'scale',
  summary:
    'three replicas sharing Redis behind HAProxy vs one alone, 2025-11-25 and 2026-07-28 clients: per-call cost, rate-limit accuracy (quiet, loaded, Redis outage), a replica killed',
  async run({ quick }) {
    const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-scale-')));
    const children: ChildProcess[] = [];
    const clients: CallingClient[] = [];
    const connect = async (url: string) => {
      const client = await connectHttpClient(url);
      clients.push(client);
      return client;
    };
    const connectModern = async (url: string, onResponse?: (response: Response) => void) => {
      const client = await connectModernHttpClient(url, onResponse);
      clients.push(client);
      return client;
    };
    try {
      const [redisPort, lbPort, statsPort] = [await freePort(), await freePort(), await freePort()];
      const redis = spawn(
        'redis-server',
        ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'pipe' },
      );
      children.push(redis);
      await waitForOutput(redis, /Ready to accept connections/, 'redis-server');
      const redisConfig = { url: `redis://127.0.0.1:${redisPort}`, keyPrefix: 'bench:' };
      const lbHost = `127.0.0.1:${lbPort}`;
      const started = await Promise.all([
        startReplica(scratch, 'alone', {}),
        ...REPLICAS.map((name) =>
          startReplica(scratch, name, {
            state: { redis: { ...redisConfig, replicaId: name } },
            server: { allowedHosts: [lbHost] },
          }),
        ),
      ]);
      for (const replica of started) children.push(replica.child);
      const [alone, ...replicas] = started as [Replica, ...Replica[]];
      const haproxy = await startHaproxy(
        replicas.map((replica) => new URL(replica.url).host),
        { port: lbPort, statsPort, timeoutMs: 30_000 },
      );
      children.push(haproxy.child);
      const lbUrl = `http://${lbHost}/mcp`;
      const aloneClients = await Promise.all(
        Array.from({ length: CONCURRENCY }, () => connect(alone.url)),
      );
      // Sessions are spread round robin: two per replica.
      const lbClients: Client[] = [];
      for (let index = 0; index < CONCURRENCY; index += 1) lbClients.push(await connect(lbUrl));
      const servedBy = lbClients.map((client) => sessionOf(client).split('.')[0] ?? '');
      // 2026-07-28 clients: stateless, so HAProxy spreads each request round robin.
      const modernAloneClients = await Promise.all(
        Array.from({ length: CONCURRENCY }, () => connectModern(alone.url)),
      );
      const modernServedBy = new ServedBy();
      const modernLbClients: CallingClient[] = [];
      for (let index = 0; index < CONCURRENCY; index += 1) {
        modernLbClients.push(await connectModern(lbUrl, modernServedBy.record));
      }

      // Per-call cost.
      const args = (index: number) => ({ text: `message ${index}`, operation: 'trim' });
      // Every process is measured at its steady state: V8 keeps optimising a replica's call path
      // for thousands of calls (one replica's CPU per call, measured over rounds of 1,500 calls:
      // 1.49 ms, 0.82, 0.59, 0.57, then 0.50 from about 6,000 calls on). Each replica behind
      // HAProxy serves a third of the calls, so it gets as many warm-up calls as the lone one,
      // or it would be measured colder.
      const warmup = quick ? 2_000 : 6_000;
      const perRound = quick ? 300 : 1_200;
      const rounds = 3;
      // Each era's request path warms apart: the stateless one is other code than the session's.
      const setUps = [aloneClients, lbClients, modernAloneClients, modernLbClients] as const;
      for (const [index, targets] of setUps.entries()) {
        await drive(
          targets,
          'text_transform',
          args,
          index % 2 === 0 ? warmup : warmup * REPLICAS.length,
        );
      }
      modernServedBy.reset();
      const totals = { elapsedMs: [0, 0, 0, 0], calls: 0, errors: 0 };
      // Interleaved rounds share the machine's noise between the four set-ups.
      for (let round = 0; round < rounds; round += 1) {
        for (const [index, targets] of setUps.entries()) {
          const run = await drive(targets, 'text_transform', args, perRound);
          totals.elapsedMs[index] = (totals.elapsedMs[index] ?? 0) + run.elapsedMs;
          totals.errors += run.errors + run.failed;
        }
        totals.calls += perRound;
      }
      const [aloneMsPerCall, sharedMsPerCall, modernAloneMsPerCall, modernSharedMsPerCall] =
        totals.elapsedMs.map((elapsed) => elapsed / totals.calls) as [
          number,
          number,
          number,
          number,
        ];
      const ratio = sharedMsPerCall / aloneMsPerCall;
      const modernRatio = modernSharedMsPerCall / modernAloneMsPerCall;
      const modernEvenness = modernServedBy.evenness(REPLICAS.length);
      const modernServedDuringCost = modernServedBy.counts();

      // Limit accuracy: a full bucket of QUOTA tokens plus the refill over the burst is what the
      // replicas may admit together. Each phase has its own tool, so each starts on a full bucket.
      const attempts = quick ? 1_200 : 2_400;
      const limitPhase = async (
        phase: keyof typeof PHASE_TOOLS,
        during?: (started: number) => void,
      ) => {
        const { tool, args: phaseArgs } = PHASE_TOOLS[phase];
        const burst = await drive(lbClients, tool, phaseArgs, attempts, during);
        const limit = QUOTA + (QUOTA * burst.elapsedMs) / 60_000;
        return { ...burst, limit, error: burst.ok / limit };
      };
      const quiet = await limitPhase('quiet');

      const burners = Array.from({ length: availableParallelism() }, () =>
        spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
      );
      children.push(...burners);
      let loaded: Awaited<ReturnType<typeof limitPhase>>;
      try {
        loaded = await limitPhase('loaded');
      } finally {
        for (const burner of burners)
          if (burner.pid !== undefined) process.kill(burner.pid, 'SIGKILL');
      }

      // Redis stopped (SIGSTOP: in-flight scripts run late when it resumes) for part of the burst.
      const outageMs = quick ? 1_500 : 3_000;
      let stoppedAt: number | undefined;
      let resumed: Promise<void> | undefined;
      const outage = await limitPhase('outage', (count) => {
        if (stoppedAt !== undefined || count < attempts / 5 || redis.pid === undefined) return;
        stoppedAt = performance.now();
        process.kill(redis.pid, 'SIGSTOP');
        resumed = new Promise((resolve) =>
          setTimeout(() => {
            if (redis.pid !== undefined) process.kill(redis.pid, 'SIGCONT');
            resolve();
          }, outageMs),
        );
      });
      await resumed;

      // One replica SIGKILLed while every session calls: the survivors' calls must all succeed.
      // The 2026-07-28 clients call meanwhile: stateless, none of their calls may be lost (a
      // request whose replica died unanswered is sent to another one by HAProxy).
      const victim = replicas[replicas.length - 1] as Replica;
      const killRunMs = quick ? 3_000 : 6_000;
      const outcomes = lbClients.map(() => [] as Outcome[]);
      const modernOutcomes: Outcome[] = [];
      modernServedBy.reset();
      const killStarted = performance.now();
      let killed = false;
      const modernCalls = modernLbClients.map(async (client) => {
        while (performance.now() - killStarted < killRunMs) {
          modernOutcomes.push(await callBounded(client));
        }
      });
      await Promise.all(
        lbClients.map(async (client, slot) => {
          while (performance.now() - killStarted < killRunMs) {
            if (!killed && performance.now() - killStarted > killRunMs / 3) {
              killed = true;
              if (victim.child.pid !== undefined) process.kill(victim.child.pid, 'SIGKILL');
            }
            const outcome = await callBounded(client);
            outcomes[slot]?.push(outcome);
            // A session told it is lost stops; a real client would initialize again.
            if (outcome !== 'ok' && servedBy[slot] === victim.name) break;
          }
        }),
      );
      await Promise.all(modernCalls);
      const modernLost = modernOutcomes.filter((outcome) => outcome !== 'ok');
      const modernServedDuringKill = modernServedBy.counts();
      const survivorSlots = servedBy.flatMap((name, slot) => (name !== victim.name ? [slot] : []));
      const victimSlots = servedBy.flatMap((name, slot) => (name === victim.name ? [slot] : []));
      const lostOnReplicaKill = survivorSlots.reduce(
        (sum, slot) => sum + (outcomes[slot] ?? []).filter((outcome) => outcome !== 'ok').length,
        0,
      );
      const survivorCalls = survivorSlots.reduce(
        (sum, slot) => sum + (outcomes[slot] ?? []).length,
        0,
      );
      const killedSessionsTold = victimSlots.map((slot) => {
        const last = (outcomes[slot] ?? []).at(-1) ?? 'ok';
        return last === 'ok' ? 'not told (no call failed)' : classify(last);
      });
      // A told session can start over: initialize again through the load balancer.
      const reinitialized = await connect(lbUrl)
        .then(async (client) => {
          const result = await client.callTool({
            name: 'text_transform',
            arguments: { text: ' again ', operation: 'trim' },
          });
          return !result.isError;
        })
        .catch(() => false);
      const states = await haproxy.serverStates().catch(() => ({}));

      const within = (value: number) => value >= LIMIT_BOUNDS[0] && value <= LIMIT_BOUNDS[1];
      const met =
        ratio <= TARGET_RATIO &&
        modernRatio <= TARGET_RATIO &&
        modernEvenness >= MIN_EVENNESS &&
        modernLost.length === 0 &&
        totals.errors === 0 &&
        within(quiet.error) &&
        within(loaded.error) &&
        outage.error <= LIMIT_BOUNDS[1] &&
        lostOnReplicaKill === 0 &&
        quiet.errors + loaded.errors + outage.errors === 0;
      const limitLine = (label: string, phase: typeof quiet) =>
        `${label.padEnd(28)} ${phase.ok} admitted of ${attempts} against ${phase.limit.toFixed(1)} allowed (${QUOTA}/min over ${(phase.elapsedMs / 1000).toFixed(1)} s) → ${phase.error.toFixed(3)}`;
      return {
        name: 'scale',
        target: `ratio <= ${TARGET_RATIO} in each era (3 replicas behind HAProxy / 1 alone, per-call cost); 2026-07-28 calls spread (each replica >= ${MIN_EVENNESS} of an even share); limitError and limitErrorLoaded within ${LIMIT_BOUNDS[0]}-${LIMIT_BOUNDS[1]}; limitErrorOutage <= ${LIMIT_BOUNDS[1]}; lostOnReplicaKill 0 in each era`,
        met,
        lines: [
          costLine('2025-11-25 one replica alone', aloneMsPerCall),
          costLine('2025-11-25 3 replicas + Redis via HAProxy', sharedMsPerCall),
          costLine('2026-07-28 one replica alone', modernAloneMsPerCall),
          costLine('2026-07-28 3 replicas + Redis via HAProxy', modernSharedMsPerCall),
          `ratio 2025-11-25 ${formatRatio(ratio)} (sessions on ${servedBy.join(' ')}), 2026-07-28 ${formatRatio(modernRatio)} (stateless calls served by ${JSON.stringify(modernServedDuringCost)}, evenness ${formatRatio(modernEvenness)}); ${CONCURRENCY} calls in flight, ${rounds} interleaved rounds`,
          `2026-07-28 over 2025-11-25 calls/s: alone ${formatRatio(aloneMsPerCall / modernAloneMsPerCall)}, via HAProxy ${formatRatio(sharedMsPerCall / modernSharedMsPerCall)}`,
          limitLine('limit, quiet', quiet),
          limitLine(`limit, ${availableParallelism()} cores saturated`, loaded),
          limitLine(`limit, Redis stopped ${(outageMs / 1000).toFixed(1)} s`, outage),
          `replica ${victim.name} SIGKILLed: ${lostOnReplicaKill} of ${survivorCalls} calls on the surviving replicas lost or hung; its sessions were told: ${killedSessionsTold.join('; ')}; a new session ${reinitialized ? 'works' : 'FAILED'}; HAProxy sees ${JSON.stringify(states)}`,
          `2026-07-28 stateless calls meanwhile: ${modernLost.length} of ${modernOutcomes.length} lost or hung${modernLost[0] ? ` (first: ${classify(modernLost[0])})` : ''}; served by ${JSON.stringify(modernServedDuringKill)}`,
        ],
        json: {
          viaLoadBalancer: true,
          replicas: REPLICAS.length,
          ratio,
          limitError: quiet.error,
          limitErrorLoaded: loaded.error,
          limitErrorOutage: outage.error,
          lostOnReplicaKill,
          survivorCallsDuringKill: survivorCalls,
          modernLostOnReplicaKill: modernLost.length,
          modernCallsDuringKill: modernOutcomes.length,
          modernFirstLost: modernLost[0] ? classify(modernLost[0]) : null,
          modernServedDuringKill,
          killedSessionsTold,
          reinitializedAfterKill: reinitialized,
          aloneCallsPerSecond: 1000 / aloneMsPerCall,
          sharedCallsPerSecond: 1000 / sharedMsPerCall,
          addedMsPerCall: sharedMsPerCall - aloneMsPerCall,
          modernRatio,
          modernAloneCallsPerSecond: 1000 / modernAloneMsPerCall,
          modernSharedCallsPerSecond: 1000 / modernSharedMsPerCall,
          modernAddedMsPerCall: modernSharedMsPerCall - modernAloneMsPerCall,
          modernServedBy: modernServedDuringCost,
          modernEvenness,
          modernOverLegacy: {
            aloneCallsPerSecond: aloneMsPerCall / modernAloneMsPerCall,
            sharedCallsPerSecond: sharedMsPerCall / modernSharedMsPerCall,
          },
          costPhaseErrors: totals.errors,
          admitted: { quiet: quiet.ok, loaded: loaded.ok, outage: outage.ok },
          callErrors: { quiet: quiet.errors, loaded: loaded.errors, outage: outage.errors },
          firstCallError: quiet.firstError ?? loaded.firstError ?? outage.firstError ?? null,
          allowed: { quiet: quiet.limit, loaded: loaded.limit, outage: outage.limit },
          outageMs,
          concurrency: CONCURRENCY,
          sessionsOn: servedBy,
          haproxyStates: states,
        },
      };
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      for (const child of children) {
        if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
          try {
            process.kill(child.pid, 'SIGCONT');
            process.kill(child.pid, 'SIGTERM');
          } catch {
            // Already gone.
          }
        }
      }
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
