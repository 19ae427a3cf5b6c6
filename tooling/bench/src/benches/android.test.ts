import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { descendantPids, tempDirsNamed } from '../cleanup.js';
import { SOURCE_NODE_ARGS } from '../processes.js';
import { androidBench, createAndroidBench } from './android.js';

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

/** Whether `pid` runs Appium's entry script. */
function isAppium(pid: number): boolean {
  try {
    return /[/\\]appium[/\\]index\.js\0/.test(readFileSync(`/proc/${pid}/cmdline`, 'latin1'));
  } catch {
    return false;
  }
}

/** Appium servers this test process started (children and below). */
function appiumServers(): number[] {
  return descendantPids(process.pid).filter(isAppium);
}

// Real adb binary, real private adb server, android-sim; figures are not held to the targets here.
describe('pnpm bench android --quick', () => {
  it('reports finite sizes, ratios and actionable counts for every screen', {
    timeout: 120_000,
  }, async () => {
    const before = tempDirsNamed('bench-android-');
    const report = await androidBench.run({ quick: true });
    const json = report.json as {
      ratioVsRaw: number;
      ratioVsPeer: number;
      ratioVsPeerJson: number;
      actionableKept: number;
      appiumVsAdb: number | null;
      worstScreenVsPeer: number;
      realActionableKept: number;
      screens: Record<string, unknown>[];
      realScreens: { screen: string; oursTokens: number; peerTokens: number; vsPeer: number }[];
    };
    // Appium and its driver are installed for platform-android's tests, so this side runs here.
    for (const value of [
      json.ratioVsRaw,
      json.ratioVsPeer,
      json.ratioVsPeerJson,
      json.appiumVsAdb as number,
    ]) {
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
      for (const field of ['appiumP50Ms', 'appiumP90Ms', 'oursP50Ms', 'oursP90Ms']) {
        expect(screen[field], `${screen.screen} ${field}`).toBeGreaterThan(0);
      }
      expect(screen.appiumP90Ms as number).toBeGreaterThanOrEqual(screen.appiumP50Ms as number);
      expect(screen.rawActionable as number).toBeGreaterThan(0);
      // The raw XML is the whole hierarchy: both lists must be smaller.
      expect(screen.oursTokens as number).toBeLessThan(screen.rawTokens as number);
      expect(screen.peerJsonTokens as number).toBeLessThan(screen.rawTokens as number);
    }
    expect(report.lines.length).toBeGreaterThan(0);
    // Every real capture platform-android keeps, read through ui_dump once.
    expect(json.realScreens.length).toBeGreaterThanOrEqual(21);
    for (const screen of json.realScreens) {
      expect(screen.oursTokens, screen.screen).toBeGreaterThan(0);
      expect(screen.vsPeer, screen.screen).toBeCloseTo(screen.oursTokens / screen.peerTokens, 2);
    }
    expect(json.worstScreenVsPeer).toBe(Math.max(...json.realScreens.map((s) => s.vsPeer)));
    expect(report.met).toBe(
      json.ratioVsRaw <= 0.15 &&
        json.ratioVsPeer <= 0.7 &&
        json.actionableKept === 1 &&
        json.worstScreenVsPeer <= 0.7 &&
        json.realActionableKept === 1,
    );
    expect(report.lines).toContainEqual(
      expect.stringMatching(
        /^appiumVsAdb \d+\.\d\d \(worst screen, ui_dump p50 through Appium \/ through adb; no target\): /,
      ),
    );
    // The Appium server it started is gone (it inherited this process's environment).
    expect(appiumServers()).toEqual([]);
    // The temp directory is gone once the run ended.
    expect(tempDirsNamed('bench-android-').filter((name) => !before.includes(name))).toEqual([]);
  });
});

describe('pnpm bench android without Appium', () => {
  it('reports appiumVsAdb as null with the reason, and still the token figures', {
    timeout: 60_000,
  }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'appium-home-'));
    try {
      const report = await createAndroidBench({ appiumHome: home }).run({ quick: true });
      expect(report.json.appiumVsAdb).toBeNull();
      expect(report.json.appiumVsAdbReason).toBe(
        `Appium is not installed under ${home} (run \`npm install appium@3.8.0 appium-uiautomator2-driver@8.7.0\` in a folder and set packages.platform-android.appiumHome to it, or set appiumUrl)`,
      );
      expect(report.lines).toContain(
        `appiumVsAdb: null (Appium not measured: ${report.json.appiumVsAdbReason})`,
      );
      expect(Number.isFinite(report.json.ratioVsRaw)).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('pnpm bench android interrupted', () => {
  it('stops its daemonised adb server and its Appium server and removes its temp directory', {
    timeout: 120_000,
  }, async () => {
    const temp = mkdtempSync(join(tmpdir(), 'bench-android-interrupted-'));
    const marker = `BENCH_ANDROID_RUN=${randomUUID()}`;
    const bench = spawn(
      process.execPath,
      [...SOURCE_NODE_ARGS, join(import.meta.dirname, '../main.ts'), 'android'],
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
    const appiums = () =>
      processesMarked(marker).filter((pid) => pid !== bench.pid && isAppium(pid));
    try {
      // The adb server is up once it runs with the bench's environment (it is no child of it);
      // the Appium server (a child) starts after it, before the rounds.
      await expect.poll(adbServers, { timeout: 90_000, interval: 100 }).not.toEqual([]);
      await expect.poll(appiums, { timeout: 90_000, interval: 100 }).not.toEqual([]);
      const servers = [...adbServers(), ...appiums()];
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
