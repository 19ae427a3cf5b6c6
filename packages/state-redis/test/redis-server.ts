import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A real `redis-server` on a private loopback port, started and stopped by a test. */
export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** The running process (replaced by {@link restart}). */
  child: ChildProcess;
  /** SIGKILLs the server and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts the server again on the same port (with the same data, when started persistent). */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing answers. */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
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

/** Options for {@link startRedis}. */
export interface StartRedisOptions {
  /**
   * Keep the data across a kill and restart: an append-only file written on every command, in a
   * temporary directory removed by `stop()`. Default false (memory only).
   */
  persistent?: boolean;
}

function launch(port: number, dataDir: string | undefined): ChildProcess {
  const persistence = dataDir
    ? ['--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  return spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      ...persistence,
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
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisProcess> {
  const port = await freePort();
  const dataDir = options.persistent ? mkdtempSync(join(tmpdir(), 'toolsys-redis-')) : undefined;
  const handle: RedisProcess = {
    port,
    url: `redis://127.0.0.1:${port}`,
    child: launch(port, dataDir),
    async kill() {
      const child = handle.child;
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      await exited(child);
    },
    async restart() {
      handle.child = launch(port, dataDir);
      try {
        await waitReady(port);
      } catch (error) {
        await handle.kill();
        throw error;
      }
    },
    pause() {
      if (handle.child.pid !== undefined) process.kill(handle.child.pid, 'SIGSTOP');
    },
    resume() {
      if (handle.child.pid !== undefined) process.kill(handle.child.pid, 'SIGCONT');
    },
    async stop() {
      const child = handle.child;
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        // A paused server would not act on SIGTERM.
        process.kill(child.pid, 'SIGCONT');
        process.kill(child.pid, 'SIGTERM');
        await exited(child);
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await waitReady(port);
  } catch (error) {
    await handle.kill();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return handle;
}
