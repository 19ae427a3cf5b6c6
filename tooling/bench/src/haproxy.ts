import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';

/** The HAProxy configuration shipped for deployments (the host README's recipe). */
export const HAPROXY_CONFIG = join(REPO_ROOT, 'deploy/haproxy.cfg');

/** `haproxy -db -f deploy/haproxy.cfg` on loopback ports, in front of `replicas` (host:port). */
export interface Haproxy {
  readonly child: ChildProcess;
  /** Each replica's state as HAProxy's health checks see it (`replica1`: `UP` …). */
  serverStates(): Promise<Record<string, string>>;
}

/** Starts HAProxy with the shipped config and waits until every replica is UP. */
export async function startHaproxy(
  replicas: readonly string[],
  port: number,
  statsPort: number,
): Promise<Haproxy> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TOOLSYS_LB_BIND: `127.0.0.1:${port}`,
    TOOLSYS_LB_STATS_BIND: `127.0.0.1:${statsPort}`,
  };
  replicas.forEach((address, index) => {
    env[`TOOLSYS_REPLICA_${index + 1}`] = address;
  });
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], { env, stdio: 'ignore' });
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
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('haproxy exited at start');
    const states = await serverStates().catch(() => ({}) as Record<string, string>);
    const values = Object.values(states);
    if (values.length === replicas.length && values.every((state) => state === 'UP')) break;
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`haproxy did not see every replica UP: ${JSON.stringify(states)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, serverStates };
}
