import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A real `redis-server` on a private loopback port, started and stopped by a test. */
export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** The running process (replaced by {@link restart}). */
  child: ChildProcess;
  /** SIGKILLs the server and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts a fresh server on the same port. */
  restart(): Promise<void>;
  /** Stops the server (by its pid), if running. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function launch(port: number): ChildProcess {
  return spawn(
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
      // DEBUG SLEEP makes Redis slow in the fault tests (off by default since Redis 7).
      '--enable-debug-command',
      'local',
    ],
    { stdio: 'ignore' },
  );
}

async function waitReady(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const probe = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      // not yet
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer on port ${port}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts `redis-server` on a free port; call `stop()` in afterAll. */
export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  const handle: RedisProcess = {
    port,
    url: `redis://127.0.0.1:${port}`,
    child: launch(port),
    async kill() {
      const child = handle.child;
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      await exited(child);
    },
    async restart() {
      handle.child = launch(port);
      try {
        await waitReady(port);
      } catch (error) {
        await handle.kill();
        throw error;
      }
    },
    async stop() {
      const child = handle.child;
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid, 'SIGTERM');
        await exited(child);
      }
    },
  };
  try {
    await waitReady(port);
  } catch (error) {
    await handle.kill();
    throw error;
  }
  return handle;
}
