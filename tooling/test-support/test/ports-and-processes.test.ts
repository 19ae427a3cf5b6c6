import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  createTempDir,
  freePort,
  isAlive,
  isPortOpen,
  listenOnLoopback,
  removeTempDir,
  stopProcess,
  waitForExit,
  waitForPort,
} from '../src/index.js';

describe('freePort', () => {
  it('returns a port a server can then bind on 127.0.0.1', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      expect(await isPortOpen(port)).toBe(true);
      await waitForPort(port, { timeoutMs: 1000 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await isPortOpen(port)).toBe(false);
  });
});

describe('listenOnLoopback', () => {
  it('starts a server on 127.0.0.1 and resolves with its port', async () => {
    const server = createServer();
    const port = await listenOnLoopback(server);
    try {
      expect(server.address()).toMatchObject({ address: '127.0.0.1', port });
      expect(await isPortOpen(port)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('processes', () => {
  it('stops a paused child by its pid and reports the signal that ended it', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    const pid = child.pid as number;
    expect(isAlive(pid)).toBe(true);
    process.kill(pid, 'SIGSTOP');
    await stopProcess(child);
    expect(await waitForExit(child)).toBe('SIGTERM');
    expect(isAlive(pid)).toBe(false);
  });

  it('resolves with the exit code of a child that ended on its own', async () => {
    const child = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
    expect(await waitForExit(child)).toBe(3);
    await stopProcess(child);
  });
});

describe('temp dirs', () => {
  it('creates a fresh folder each time and removes it', async () => {
    const [first, second] = [
      await createTempDir('toolsys-ts-'),
      await createTempDir('toolsys-ts-'),
    ];
    expect(first).not.toBe(second);
    await removeTempDir(first);
    await removeTempDir(second);
    expect(existsSync(first) || existsSync(second)).toBe(false);
  });
});
