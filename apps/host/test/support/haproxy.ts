import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './redis-server.js';

/** The HAProxy configuration shipped for deployments, the one the README's recipe uses. */
export const HAPROXY_CONFIG = fileURLToPath(
  new URL('../../../../deploy/haproxy.cfg', import.meta.url),
);

/** A real `haproxy` in front of replicas, on loopback ports, for tests. */
export interface HaproxyProcess {
  /** The load balancer's base URL. */
  readonly url: string;
  /** The state of each replica (`replica1` …) as HAProxy's health checks see it (`UP`, `DOWN` …). */
  serverStates(): Promise<Record<string, string>>;
  /** Stops HAProxy (by its pid) and waits for it to exit. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `haproxy -db -f deploy/haproxy.cfg` with the replicas' `host:port` addresses and waits
 * until every replica is UP.
 */
export async function startHaproxy(
  replicas: readonly string[],
  options: { port?: number } = {},
): Promise<HaproxyProcess> {
  const [port, statsPort] = [options.port ?? (await freePort()), await freePort()];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TOOLSYS_LB_BIND: `127.0.0.1:${port}`,
    TOOLSYS_LB_STATS_BIND: `127.0.0.1:${statsPort}`,
  };
  replicas.forEach((address, index) => {
    env[`TOOLSYS_REPLICA_${index + 1}`] = address;
  });
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], { env, stdio: 'pipe' });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const serverStates = async (): Promise<Record<string, string>> => {
    const response = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, {
      signal: AbortSignal.timeout(2000),
    });
    const states: Record<string, string> = {};
    for (const line of (await response.text()).split('\n')) {
      const fields = line.split(',');
      if (fields[0] === 'toolsys' && fields[1]?.startsWith('replica')) {
        states[fields[1]] = (fields[17] ?? '').split(' ')[0] ?? '';
      }
    }
    return states;
  };
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
    await exited(child);
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${output}`);
    const states = await serverStates().catch(() => ({}) as Record<string, string>);
    if (
      Object.keys(states).length === replicas.length &&
      Object.values(states).every((state) => state === 'UP')
    ) {
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not see every replica UP: ${JSON.stringify(states)} ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}`, serverStates, stop };
}
