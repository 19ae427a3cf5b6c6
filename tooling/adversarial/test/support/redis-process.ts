import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A real `redis-server` on a private loopback port, stopped by its pid. */
export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** Runs one `redis-cli` command against it; its output, trimmed. */
  cli(...args: string[]): Promise<string>;
  /** Stops the server by its pid. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
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

function redisCli(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout.trim());
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts `redis-server` (memory only) on a free port; call `stop()` in afterAll. */
export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const handle: RedisProcess = {
    port,
    url: `redis://127.0.0.1:${port}`,
    cli: (...args) => redisCli(port, args),
    async stop() {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid, 'SIGTERM');
      }
      await exited(child);
    },
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await handle.cli('PING')) === 'PONG') return handle;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`redis-server did not answer on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
