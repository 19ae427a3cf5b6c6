// A real `redis-server` per test file, on a private loopback port, stopped by its pid.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './ports.js';
import { stopProcess } from './processes.js';
import { createTempDir, removeTempDir } from './temp-dirs.js';

/** A real `redis-server` on a private loopback port, started and stopped by a test. */
export interface RedisProcess {
  /** The port it listens on, on 127.0.0.1 only. */
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The running process (replaced by {@link RedisProcess.restart}). */
  child: ChildProcess;
  /** Runs one `redis-cli` command against it; its output, trimmed. */
  cli(...args: string[]): Promise<string>;
  /** SIGKILLs the server (by its pid) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts the server again on the same port (with the same data, when started persistent). */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing answers. */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
  /** Stops the server (by its pid, even when paused), if running, and removes its data folder. */
  stop(): Promise<void>;
}

/** Options for {@link startRedis}. */
export interface StartRedisOptions {
  /**
   * Keep the data across a kill and restart: an append-only file written on every command, in a
   * fresh temporary folder removed by `stop()`. Default false (memory only).
   */
  persistent?: boolean;
}

/** How long a start or restart may take before it fails, in ms. */
const READY_TIMEOUT_MS = 10_000;

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

function redisCli(port: number, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout.trim());
    });
  });
}

/** Whether a Redis server on the port answers PING with PONG (RESP over a raw socket, 1 s). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let received = '';
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n')) done(received.startsWith('+PONG'));
    });
  });
}

async function waitReady(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`redis-server did not answer on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts `redis-server` on a free port of 127.0.0.1, with nothing saved unless `persistent`, and
 * waits until it answers PING; call `stop()` in afterAll. Needs `redis-server` 7 or later on the
 * PATH (and `redis-cli` for {@link RedisProcess.cli}).
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisProcess> {
  const port = await freePort();
  const dataDir = options.persistent ? await createTempDir('toolsys-redis-') : undefined;
  const handle: RedisProcess = {
    port,
    url: `redis://127.0.0.1:${port}`,
    child: launch(port, dataDir),
    cli: (...args) => redisCli(port, args),
    async kill() {
      await stopProcess(handle.child, { signal: 'SIGKILL' });
    },
    async restart() {
      handle.child = launch(port, dataDir);
      try {
        await waitReady(port, handle.child);
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
      await stopProcess(handle.child);
      if (dataDir) await removeTempDir(dataDir);
    },
  };
  try {
    await waitReady(port, handle.child);
  } catch (error) {
    await handle.kill();
    if (dataDir) await removeTempDir(dataDir);
    throw error;
  }
  return handle;
}
