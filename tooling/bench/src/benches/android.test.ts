import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { androidBench } from './android.js';

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
