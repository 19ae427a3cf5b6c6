// Loopback ports for servers that tests and benches start: chosen free, never fixed.
import { type AddressInfo, createConnection, createServer, type Server } from 'node:net';

/**
 * A TCP port that is free on 127.0.0.1 right now: the OS picks it for a throw-away listener bound to
 * loopback only, which is closed before the port is returned. Another process may take it in
 * between, so start the server that needs it straight away.
 */
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

/**
 * Starts `server` (an HTTP or TCP server) listening on 127.0.0.1 at a port the OS picks; resolves
 * with that port, or rejects when it cannot listen.
 */
export async function listenOnLoopback(server: Server): Promise<number> {
  return await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Options for {@link isPortOpen}. */
export interface IsPortOpenOptions {
  /** The host to connect to. Default `127.0.0.1`. */
  host?: string;
  /** How long the one attempt may take, in ms. Default 1000. */
  timeoutMs?: number;
}

/** Whether something accepts TCP connections on the port (one attempt). */
export async function isPortOpen(port: number, options: IsPortOpenOptions = {}): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = createConnection({ host: options.host ?? '127.0.0.1', port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(options.timeoutMs ?? 1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Options for {@link waitForPort}. */
export interface WaitForPortOptions {
  /** The host to connect to. Default `127.0.0.1`. */
  host?: string;
  /** How long to keep trying, in ms. Default 10 000. */
  timeoutMs?: number;
}

/** Waits until something accepts TCP connections on the port; throws when `timeoutMs` passes. */
export async function waitForPort(port: number, options: WaitForPortOptions = {}): Promise<void> {
  const host = options.host ?? '127.0.0.1';
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (!(await isPortOpen(port, { host }))) {
    if (Date.now() > deadline) throw new Error(`nothing listens on ${host}:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
