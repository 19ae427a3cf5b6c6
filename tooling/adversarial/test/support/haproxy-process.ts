import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

/** The HAProxy configuration shipped for deployments. */
export const HAPROXY_CONFIG = resolve(import.meta.dirname, '../../../../deploy/haproxy.cfg');

/** A real `haproxy -db -f deploy/haproxy.cfg` on loopback, stopped by its pid. */
export interface HaproxyProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** A free loopback port (the load balancer's address must be known before replicas start). */
export async function freePort(): Promise<number> {
  return await new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

/**
 * Starts HAProxy with the shipped config in front of `replicas` (`host:port`), with `env` added
 * (e.g. `TOOLSYS_LB_STICK_SIZE`), and waits until every replica is UP on its stats page.
 */
export async function startHaproxy(
  replicas: readonly string[],
  options: { port: number; env?: Record<string, string> },
): Promise<HaproxyProcess> {
  const statsPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TOOLSYS_LB_BIND: `127.0.0.1:${options.port}`,
    TOOLSYS_LB_STATS_BIND: `127.0.0.1:${statsPort}`,
    ...options.env,
  };
  replicas.forEach((address, index) => {
    env[`TOOLSYS_REPLICA_${index + 1}`] = address;
  });
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], { env, stdio: 'pipe' });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
    await exited(child);
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${output}`);
    const csv = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, {
      signal: AbortSignal.timeout(2000),
    })
      .then((response) => response.text())
      .catch(() => '');
    const up = csv
      .split('\n')
      .filter((line) => line.startsWith('toolsys,replica'))
      .filter((line) => (line.split(',')[17] ?? '').startsWith('UP'));
    if (up.length === replicas.length) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not see every replica UP: ${output}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { url: `http://127.0.0.1:${options.port}`, stop };
}
