import { type RedisProcess, type StartRedisOptions, startRedis } from '@toolsys/test-support';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { SharedState } from '../src/index.js';

/** The redis-server of a test file, an admin client on it, and the shared states to close. */
export interface RedisFixture {
  /** The server (set in beforeAll). */
  readonly server: RedisProcess;
  /** A plain client for asserting what is in Redis; reconnects after a restart. */
  readonly admin: Redis;
  /** Shared states closed after each test. */
  readonly opened: SharedState[];
}

/**
 * Starts a redis-server for the file (stopped in afterAll), empties it before each test and
 * closes the shared states the test opened after it.
 */
export function useRedis(options: StartRedisOptions = {}): RedisFixture {
  let server: RedisProcess | undefined;
  let admin: Redis | undefined;
  const opened: SharedState[] = [];
  beforeAll(async () => {
    server = await startRedis(options);
    admin = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    // Tests that kill the server see the errors through their own assertions.
    admin.on('error', () => {});
  }, 30_000);
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(async () => {
    await admin?.flushall();
  });
  afterEach(async () => {
    for (const state of opened.splice(0)) await state.close();
  });
  return {
    get server() {
      if (!server) throw new Error('redis-server not started yet');
      return server;
    },
    get admin() {
      if (!admin) throw new Error('redis-server not started yet');
      return admin;
    },
    opened,
  };
}

/** Polls `condition` every 10 ms until it holds; throws after `timeoutMs`. */
export async function until(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
