import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { androidBench } from './android.js';

/** Pids of processes whose environment holds `marker` (the adb server inherits the bench's). */
function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker))
        found.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

function benchDirs(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('bench-android-'));
}

// Real adb binary, real private adb server, android-sim; figures are not held to the targets here.
describe('pnpm bench android --quick', () => {
  it('reports finite sizes, ratios and actionable counts for every screen', {
    timeout: 120_000,
  }, async () => {
    const before = benchDirs();
    const report = await androidBench.run({ quick: true });
    const json = report.json as {
      ratioVsRaw: number;
      ratioVsPeer: number;
      ratioVsPeerJson: number;
      actionableKept: number;
      screens: Record<string, unknown>[];
    };
    for (const value of [json.ratioVsRaw, json.ratioVsPeer, json.ratioVsPeerJson]) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
    expect(json.actionableKept).toBeGreaterThanOrEqual(0);
    expect(json.actionableKept).toBeLessThanOrEqual(1);
    expect(json.screens.map((screen) => screen.screen)).toEqual([
      'settings list',
      'chat with keyboard up',
      'long feed',
    ]);
    for (const screen of json.screens) {
      for (const field of ['rawTokens', 'oursTokens', 'peerTokens', 'peerJsonTokens']) {
        expect(screen[field], `${screen.screen} ${field}`).toBeGreaterThan(0);
      }
      for (const field of ['rawActionable', 'oursActionable', 'oursKept', 'peerActionable']) {
        expect(Number.isInteger(screen[field]), `${screen.screen} ${field}`).toBe(true);
      }
      expect(screen.rawActionable as number).toBeGreaterThan(0);
      // The raw XML is the whole hierarchy: both lists must be smaller.
      expect(screen.oursTokens as number).toBeLessThan(screen.rawTokens as number);
      expect(screen.peerJsonTokens as number).toBeLessThan(screen.rawTokens as number);
    }
    expect(report.lines.length).toBeGreaterThan(0);
    expect(report.met).toBe(
      json.ratioVsRaw <= 0.15 && json.ratioVsPeer <= 0.7 && json.actionableKept === 1,
    );
    // The temp directory is gone once the run ended.
    expect(benchDirs().filter((name) => !before.includes(name))).toEqual([]);
  });
});

describe('pnpm bench android interrupted', () => {
  it('stops its daemonised adb server and removes its temp directory', {
    timeout: 120_000,
  }, async () => {
    const temp = mkdtempSync(join(tmpdir(), 'bench-android-interrupted-'));
    const marker = `BENCH_ANDROID_RUN=${randomUUID()}`;
    const bench = spawn(
      process.execPath,
      [
        '--conditions=@toolsys/source',
        '--import',
        'tsx',
        join(import.meta.dirname, '../main.ts'),
        'android',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TMPDIR: temp, BENCH_ANDROID_RUN: marker.split('=')[1] },
      },
    );
    bench.stdout.resume();
    bench.stderr.resume();
    const exited = new Promise<number | null>((resolve) =>
      bench.once('exit', (code) => resolve(code)),
    );
    const adbServers = () =>
      processesMarked(marker).filter(
        (pid) =>
          pid !== bench.pid &&
          readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('fork-server'),
      );
    try {
      // The adb server is up once it runs with the bench's environment (it is no child of it).
      await expect.poll(adbServers, { timeout: 90_000, interval: 100 }).not.toEqual([]);
      const servers = adbServers();
      bench.kill('SIGINT');
      expect(await exited).toBe(130);
      await expect
        .poll(() => servers.filter((pid) => existsSync(`/proc/${pid}`)), {
          timeout: 15_000,
          interval: 200,
        })
        .toEqual([]);
      expect(readdirSync(temp).filter((name) => name.startsWith('bench-android-'))).toEqual([]);
    } finally {
      if (bench.exitCode === null) bench.kill('SIGKILL');
      for (const pid of processesMarked(marker)) process.kill(pid, 'SIGKILL');
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
