import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { descendantPids, removeOnExit } from '../cleanup.js';
import { HOST_DIR, hostCliArgs } from '../processes.js';
import { type Bench, formatRatio, percentile } from '../report.js';

const TARGET_RATIO = 1.0;
const BULK_BYTES = 2_000_000;
const BULK_COMMAND = `head -c ${BULK_BYTES} /dev/zero | tr '\\0' x`;
const SHORT_COMMAND = 'echo hi';
/** Per-call time budget: a side that takes longer fails the bench instead of hanging it. */
const CALL_TIMEOUT_MS = 60_000;
/** Most read_process_output calls for one short-lived peer process before it counts as lost. */
const PEER_MAX_READS = 50;

type Side = 'ours' | 'theirs';
/** Each round runs both sides once; the order alternates so neither is always first. */
const ORDERS: readonly (readonly Side[])[] = [
  ['ours', 'theirs'],
  ['theirs', 'ours'],
];

/**
 * The command of stderr run `index`: `err-<index>-<300 zeros>-end` on stderr, then exit 7. The
 * zeros come from a format (`%0300d`), so a shell echoing the command line cannot pass the check.
 */
function stderrCommand(index: number): { command: string; expected: string } {
  const expected = `err-${index}-${'0'.repeat(300)}-end`;
  return { command: `sh -c 'printf "err-${index}-%0300d-end" 0 >&2; exit 7'`, expected };
}

interface Server {
  readonly client: Client;
  readonly transport: StdioClientTransport;
}

/** Text of an MCP call result's content, joined. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n');
}

async function call(
  server: Server,
  name: string,
  args: Record<string, unknown>,
): Promise<Awaited<ReturnType<Client['callTool']>>> {
  return server.client.callTool({ name, arguments: args }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  });
}

/** Structured data of one of our calls; throws with the model-facing text when it failed. */
async function callOurs(
  server: Server,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await call(server, name, args);
  if (result.isError || !result.structuredContent)
    throw new Error(`${name} failed: ${textOf(result).slice(0, 500)}`);
  return result.structuredContent as Record<string, unknown>;
}

/** `toolsys serve --stdio` with only core and platform-terminal on, MEDIUM and HIGH risk allowed. */
async function startToolsys(scratch: string): Promise<Server> {
  const workspace = join(scratch, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const config = join(scratch, 'toolsys.config.json');
  const unlimited = { ratePerMinute: null };
  writeFileSync(
    config,
    JSON.stringify({
      workspaceRoot: workspace,
      dataDir: join(scratch, 'data'),
      // A bench has no one to answer "ask": terminal.create is MEDIUM risk, and the session runs
      // in the sandbox, whose input needs no confirmation (input to any other session asks).
      permissions: { MEDIUM: 'allow', HIGH: 'allow' },
      packages: {
        'mcp-client': { enabled: false },
        'cs-mem': { enabled: false },
        'app-github': { enabled: false },
        'app-browser': { enabled: false },
        'platform-android': { enabled: false },
        'platform-terminal': { enabled: true, ringBytes: 4 * 1024 * 1024 },
      },
      // The bench measures the terminal, not the rate limits of its run policies.
      tools: {
        runPolicies: {
          'terminal.run': unlimited,
          'terminal.create': unlimited,
          'terminal.observe': unlimited,
          'terminal.close': unlimited,
        },
      },
    }),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: hostCliArgs('serve', '--stdio', '--config', config),
    cwd: HOST_DIR,
    env: { ...stringEnv(), INIT_CWD: scratch },
    stderr: 'ignore',
  });
  // Announcing the host's own capability gets every tool's data as structured content.
  const client = new Client(
    { name: 'toolsys-bench', version: '0.0.0' },
    { capabilities: { experimental: { 'dev.toolsys/tool': {} } } },
  );
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return { client, transport };
}

/** Desktop Commander over stdio, with a private HOME, telemetry off and no flag download. */
async function startDesktopCommander(scratch: string): Promise<Server> {
  const require = createRequire(import.meta.url);
  const entry = join(
    dirname(require.resolve('@wonderwhy-er/desktop-commander/package.json')),
    'dist/index.js',
  );
  const home = join(scratch, 'home');
  const workspace = join(scratch, 'workspace');
  mkdirSync(join(home, '.claude-server-commander'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    join(home, '.claude-server-commander', 'config.json'),
    JSON.stringify({ telemetryEnabled: false }),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    cwd: workspace,
    env: {
      ...stringEnv(),
      HOME: home,
      DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1',
      // Its feature flags are fetched from the internet; point them at a closed local port.
      DC_FLAG_URL: 'http://127.0.0.1:9/flags.json',
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'toolsys-bench', version: '0.0.0' });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  return { client, transport };
}

function stringEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

/** Ends a server: its client, then every process below it and itself, by pid. */
async function stop(server: Server): Promise<void> {
  const pid = server.transport.pid;
  const below = pid === null ? [] : descendantPids(pid);
  await server.client.close().catch(() => {});
  for (const child of [...below.reverse(), ...(pid === null ? [] : [pid])]) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Reads a peer process until it has ended; returns everything it printed, or why not. */
async function readPeerToEnd(theirs: Server, started: string): Promise<string> {
  const pid = /PID (\d+)/.exec(started)?.[1];
  if (pid === undefined) throw new Error(`start_process gave no PID: ${started.slice(0, 300)}`);
  let text = started;
  for (let read = 0; read < PEER_MAX_READS; read += 1) {
    const result = await call(theirs, 'read_process_output', {
      pid: Number(pid),
      timeout_ms: 1_000,
    });
    const chunk = textOf(result);
    text += `\n${chunk}`;
    if (/Process completed with exit code|No session found for PID/.test(chunk)) return text;
  }
  return text;
}

/** Longest unbroken run of `x` in `text`, continuing a run of `carry` from the text before. */
function xRun(text: string, carry: number): { longest: number; trailing: number } {
  let longest = carry;
  let current = carry;
  for (let index = 0; index < text.length; index += 1) {
    if (text.charCodeAt(index) === 120) {
      current += 1;
      if (current > longest) longest = current;
    } else current = 0;
  }
  return { longest, trailing: current };
}

/**
 * The longest unbroken run of `x` in the raw output of one of our sessions, from `cursor` to its
 * end (the bulk command prints nothing else); 0 when the ring dropped any of it.
 */
async function rawXRun(ours: Server, sessionId: string, from: number): Promise<number> {
  let cursor = from;
  let longest = 0;
  let trailing = 0;
  for (;;) {
    const data = await callOurs(ours, 'terminal.observe', {
      sessionId,
      mode: 'raw',
      cursor,
      maxBytes: 1_048_576,
      plain: false,
    });
    if (Number(data.droppedBytes) > 0) return 0;
    const run = xRun(String(data.text), trailing);
    longest = Math.max(longest, run.longest);
    trailing = run.trailing;
    cursor = Number(data.nextCursor);
    if (Number(data.pendingBytes) <= 0) return longest;
  }
}

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * `pnpm bench terminal`: over MCP stdio, `toolsys serve --stdio` (core and platform-terminal only)
 * against Desktop Commander 0.2.52 in one run, rounds interleaved call by call:
 * (a) `echo hi` round trip, our `terminal.run` in an open (sandboxed) session vs their `start_process`;
 * (b) a command printing 2,000,000 bytes, with our output counted byte by byte through
 * `terminal.observe` raw; (c) short-lived commands that write a marked line to stderr and exit 7:
 * how many delivered the whole line (theirs: `start_process`, then `read_process_output` until
 * the process has ended). `ratio` and `ratioBulk` are ours / theirs at the median.
 */
export const terminalBench: Bench = {
  name: 'terminal',
  summary: 'terminal.run over MCP stdio vs Desktop Commander start_process (echo, 2 MB, stderr)',
  async run({ quick }) {
    const scratch = removeOnExit(mkdtempSync(join(tmpdir(), 'toolsys-bench-terminal-')));
    const servers: Server[] = [];
    try {
      const ours = await startToolsys(join(scratch, 'ours'));
      servers.push(ours);
      const theirs = await startDesktopCommander(join(scratch, 'theirs'));
      servers.push(theirs);
      const created = await callOurs(ours, 'terminal.create', { sandbox: true });
      const sessionId = String(created.sessionId);

      const runOurs = async (command: string) => {
        const data = await callOurs(ours, 'terminal.run', { command, sessionId, waitMs: 30_000 });
        if (data.completed !== true) throw new Error(`terminal.run did not complete: ${command}`);
        return data;
      };
      const startTheirs = async (command: string) => {
        const result = await call(theirs, 'start_process', { command, timeout_ms: 30_000 });
        const text = textOf(result);
        if (result.isError) throw new Error(`start_process failed: ${text.slice(0, 300)}`);
        return text;
      };

      // (a) short command round trip.
      const warmup = quick ? 3 : 10;
      const iterations = quick ? 10 : 100;
      const short: Record<Side, number[]> = { ours: [], theirs: [] };
      for (let index = 0; index < warmup + iterations; index += 1) {
        for (const side of ORDERS[index % ORDERS.length] as readonly Side[]) {
          const started = performance.now();
          if (side === 'ours') {
            const data = await runOurs(SHORT_COMMAND);
            if (String(data.output).trim() !== 'hi' || data.exitCode !== 0)
              throw new Error(
                `terminal.run gave ${JSON.stringify(data.output)}, exit ${data.exitCode}`,
              );
          } else {
            const text = await startTheirs(SHORT_COMMAND);
            if (!/Initial output:\nhi\n/.test(text)) throw new Error(`start_process gave ${text}`);
          }
          if (index >= warmup) short[side].push(performance.now() - started);
        }
      }

      // (b) ~2 MB of output.
      const bulkRuns = quick ? 2 : 10;
      const bulk: Record<Side, number[]> = { ours: [], theirs: [] };
      let bulkComplete = 0;
      let bulkCompletePeer = 0;
      for (let index = 0; index < bulkRuns; index += 1) {
        for (const side of ORDERS[index % ORDERS.length] as readonly Side[]) {
          if (side === 'ours') {
            const before = await callOurs(ours, 'terminal.observe', { sessionId, mode: 'state' });
            const started = performance.now();
            const data = await runOurs(BULK_COMMAND);
            bulk.ours.push(performance.now() - started);
            // Counted outside the timed call: every byte must still be readable.
            const xs = await rawXRun(ours, sessionId, Number(before.nextCursor));
            if (
              xs === BULK_BYTES &&
              Number(data.droppedBytes) === 0 &&
              Number(data.outputBytes) >= BULK_BYTES
            )
              bulkComplete += 1;
          } else {
            const started = performance.now();
            const text = await startTheirs(BULK_COMMAND);
            bulk.theirs.push(performance.now() - started);
            if (xRun(text, 0).longest === BULK_BYTES) bulkCompletePeer += 1;
          }
        }
      }

      // (c) stderr of a process that exits at once.
      const stderrRuns = quick ? 10 : 200;
      let stderrComplete = 0;
      let stderrCompletePeer = 0;
      for (let index = 0; index < stderrRuns; index += 1) {
        const { command, expected } = stderrCommand(index);
        for (const side of ORDERS[index % ORDERS.length] as readonly Side[]) {
          if (side === 'ours') {
            const data = await runOurs(command);
            if (String(data.output).includes(expected) && data.exitCode === 7) stderrComplete += 1;
          } else {
            const text = await readPeerToEnd(theirs, await startTheirs(command));
            if (text.includes(expected)) stderrCompletePeer += 1;
          }
        }
      }
      await callOurs(ours, 'terminal.close', { sessionId }).catch(() => {});

      const p50 = (values: number[]) => percentile(sorted(values), 0.5);
      const ratio = p50(short.ours) / p50(short.theirs);
      const ratioBulk = p50(bulk.ours) / p50(bulk.theirs);
      const met =
        ratio <= TARGET_RATIO &&
        ratioBulk <= TARGET_RATIO &&
        bulkComplete === bulkRuns &&
        stderrComplete === stderrRuns;
      const figures = {
        shortRuns: short.ours.length,
        oursP50Ms: round(p50(short.ours)),
        theirsP50Ms: round(p50(short.theirs)),
        oursP99Ms: round(percentile(sorted(short.ours), 0.99)),
        theirsP99Ms: round(percentile(sorted(short.theirs), 0.99)),
        bulkRuns,
        bulkBytes: BULK_BYTES,
        oursBulkP50Ms: round(p50(bulk.ours)),
        theirsBulkP50Ms: round(p50(bulk.theirs)),
        bulkComplete,
        bulkCompletePeer,
        stderrRuns,
      };
      return {
        name: 'terminal',
        target: `ratio <= ${TARGET_RATIO.toFixed(1)} and ratioBulk <= ${TARGET_RATIO.toFixed(1)} (ours / Desktop Commander, p50), all of our bulk output and stderr complete`,
        met,
        lines: [
          `(a) "${SHORT_COMMAND}" x${figures.shortRuns} each, alternating call by call`,
          `    terminal.run (open session):  p50 ${figures.oursP50Ms} ms, p99 ${figures.oursP99Ms} ms`,
          `    Desktop Commander start_process: p50 ${figures.theirsP50Ms} ms, p99 ${figures.theirsP99Ms} ms`,
          `    ratio (ours / theirs, p50): ${formatRatio(ratio)}`,
          `(b) ${BULK_BYTES} bytes of output x${bulkRuns} each`,
          `    terminal.run p50 ${figures.oursBulkP50Ms} ms (complete ${bulkComplete}/${bulkRuns}); start_process p50 ${figures.theirsBulkP50Ms} ms (complete ${bulkCompletePeer}/${bulkRuns})`,
          `    ratioBulk (ours / theirs, p50): ${formatRatio(ratioBulk)}`,
          `(c) stderr of a process exiting at once, whole: ours ${stderrComplete}/${stderrRuns}, Desktop Commander ${stderrCompletePeer}/${stderrRuns}`,
        ],
        json: {
          ratio: round(ratio),
          ratioBulk: round(ratioBulk),
          stderrComplete,
          stderrCompletePeer,
          ...figures,
        },
      };
    } finally {
      for (const server of servers) await stop(server);
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
