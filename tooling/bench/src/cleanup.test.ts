import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { descendantPids } from './cleanup.js';
import { SOURCE_NODE_ARGS } from './processes.js';

describe('descendantPids', () => {
  it('finds children and grandchildren of a process', async () => {
    // sh starts a sleep of its own: a grandchild of this test process.
    const child = spawn('sh', ['-c', 'sleep 30 & echo $!; wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const grandchild = await new Promise<number>((resolve) =>
        child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
      );
      const found = descendantPids(process.pid);
      expect(found).toContain(child.pid);
      expect(found).toContain(grandchild);
      expect(descendantPids(grandchild)).toEqual([]);
    } finally {
      for (const pid of descendantPids(child.pid as number)) process.kill(pid, 'SIGKILL');
      child.kill('SIGKILL');
    }
  });
});

describe('pnpm bench interrupted', () => {
  it('leaves no process and no temp directory behind', { timeout: 120_000 }, async () => {
    const temp = mkdtempSync(join(tmpdir(), 'bench-interrupted-'));
    const bench = spawn(
      process.execPath,
      [...SOURCE_NODE_ARGS, join(import.meta.dirname, 'main.ts'), 'serve'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TMPDIR: temp },
      },
    );
    const exited = new Promise<number | null>((resolve) =>
      bench.once('exit', (code) => resolve(code)),
    );
    // Wait until both servers run: the bench has a child per peer.
    await expect
      .poll(() => descendantPids(bench.pid as number).length, { timeout: 90_000, interval: 250 })
      .toBeGreaterThanOrEqual(2);
    const started = descendantPids(bench.pid as number);
    bench.kill('SIGINT');
    expect(await exited).toBe(130);
    const alive = () => started.filter((pid) => existsSync(`/proc/${pid}`));
    try {
      await expect.poll(alive, { timeout: 15_000, interval: 200 }).toEqual([]);
      expect(readdirSync(temp).filter((name) => name.startsWith('toolsys-bench-'))).toEqual([]);
    } finally {
      for (const pid of alive()) process.kill(pid, 'SIGKILL');
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
