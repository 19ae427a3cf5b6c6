// A real HAProxy with the shipped deploy/haproxy.cfg in front of host replicas, on loopback ports.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';
import { stopProcess } from './processes.js';

/** The HAProxy configuration shipped for deployments, the one the host README's recipe uses. */
export const HAPROXY_CONFIG = fileURLToPath(
  new URL('../../../deploy/haproxy.cfg', import.meta.url),
);

/** A real `haproxy -db -f deploy/haproxy.cfg` on loopback ports, stopped by its pid. */
export interface HaproxyProcess {
  /** The load balancer's base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port the load balancer listens on. */
  readonly port: number;
  /** The port of its stats page (`/stats;csv`). */
  readonly statsPort: number;
  /** The running process. */
  readonly child: ChildProcess;
  /** The state of each replica (`replica1` …) as HAProxy's health checks see it (`UP`, `DOWN` …). */
  serverStates(): Promise<Record<string, string>>;
  /** Stops HAProxy (SIGTERM by its pid) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Options for {@link startHaproxy}. */
export interface StartHaproxyOptions {
  /**
   * The load balancer's port, when it must be known before the replicas start. Default a free
   * port.
   */
  port?: number;
  /** The stats page's port. Default a free port. */
  statsPort?: number;
  /** Variables added to HAProxy's environment (e.g. `TOOLSYS_LB_STICK_SIZE`). Default none. */
  env?: Record<string, string>;
  /** How long every replica may take to be UP, in ms. Default 20 000. */
  timeoutMs?: number;
}

/** Reads each replica's state from HAProxy's CSV stats page. */
async function readServerStates(statsPort: number): Promise<Record<string, string>> {
  const response = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, {
    signal: AbortSignal.timeout(2000),
  });
  const states: Record<string, string> = {};
  for (const line of (await response.text()).split('\n')) {
    const fields = line.split(',');
    if (fields[0] === 'toolsys' && fields[1]?.startsWith('replica')) {
      // Field 17 is `status` (`UP`, `DOWN`, `UP 1/3` while a check is in transition).
      states[fields[1]] = (fields[17] ?? '').split(' ')[0] ?? '';
    }
  }
  return states;
}

/**
 * Starts `haproxy -db -f deploy/haproxy.cfg` in front of `replicas` (`host:port` each, passed as
 * `TOOLSYS_REPLICA_<n>`), bound to 127.0.0.1 only, and waits until every replica is UP on its
 * stats page; stops it and throws when HAProxy exits or `timeoutMs` passes first. Needs `haproxy`
 * on the PATH.
 */
export async function startHaproxy(
  replicas: readonly string[],
  options: StartHaproxyOptions = {},
): Promise<HaproxyProcess> {
  const port = options.port ?? (await freePort());
  const statsPort = options.statsPort ?? (await freePort());
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TOOLSYS_LB_BIND: `127.0.0.1:${port}`,
    TOOLSYS_LB_STATS_BIND: `127.0.0.1:${statsPort}`,
    ...options.env,
  };
  replicas.forEach((address, index) => {
    env[`TOOLSYS_REPLICA_${index + 1}`] = address;
  });
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], { env, stdio: 'pipe' });
  child.stdout?.resume();
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const handle: HaproxyProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    statsPort,
    child,
    serverStates: () => readServerStates(statsPort),
    stop: () => stopProcess(child),
  };
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${output}`);
    const states = await handle.serverStates().catch(() => ({}) as Record<string, string>);
    const values = Object.values(states);
    if (values.length === replicas.length && values.every((state) => state === 'UP')) break;
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`haproxy did not see every replica UP: ${JSON.stringify(states)} ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return handle;
}
