import { describe, expect, it } from 'vitest';
import { descendantPids } from '../cleanup.js';
import { acrossEras, eraFigures, mcpBench } from './mcp.js';
import { eraPeers, firstCallMs } from './mcp-eras.js';

describe('eraFigures', () => {
  it('judges ours over raw at the median, and turns mean ms into calls/s', () => {
    const figures = eraFigures(
      { raw: [0.1, 0.2, 0.3, 1.4], client: [0.1, 0.1, 0.2, 0.2], ours: [0.2, 0.25, 0.3, 0.45] },
      { raw: [200, 300, 250], client: [210, 260, 240], ours: [275, 500, 260] },
    );
    expect(figures.calls).toBe(4);
    // Nearest-rank median of four values is the third.
    expect(figures.rawP50Ms).toBe(0.3);
    expect(figures.oursP50Ms).toBe(0.3);
    expect(figures.ratio).toBe(1);
    expect(figures.rawMeanMs).toBe(0.5);
    expect(figures.rawCallsPerSecond).toBe(2000);
    expect(figures.oursCallsPerSecond).toBe(3333);
    expect(figures.meanRatio).toBe(0.6);
    expect(figures.pipelineUs).toBe(100);
    expect(figures.directSavesUs).toBe(100);
    expect(figures.firstCallRawMs).toBe(250);
    expect(figures.firstCallOursMs).toBe(275);
    expect(figures.firstCallRatio).toBe(1.1);
  });

  it('compares the eras side by side, 2026-07-28 over 2025-11-25', () => {
    const legacy = eraFigures(
      { raw: [0.5], client: [0.4], ours: [1] },
      { raw: [100], client: [100], ours: [200] },
    );
    const modern = eraFigures(
      { raw: [0.25], client: [0.4], ours: [0.5] },
      { raw: [300], client: [100], ours: [100] },
    );
    expect(acrossEras(legacy, modern)).toEqual({
      rawCallsPerSecond: 2,
      clientCallsPerSecond: 1,
      oursCallsPerSecond: 2,
      firstCallRaw: 3,
      firstCallOurs: 0.5,
    });
  });
});

describe('the era peers over stdio', () => {
  it('refuses a 2026-07-28 connection to the 2025-only server instead of falling back', async () => {
    const legacy = eraPeers()['2025-11-25'];
    const pinned = {
      ...legacy,
      era: '2026-07-28' as const,
      config: { ...legacy.config, protocolVersion: '2026-07-28' as const },
    };
    const refused = /did not offer pinned protocol version 2026-07-28/;
    await expect(firstCallMs(pinned, 'client')).rejects.toThrow(refused);
    await expect(firstCallMs(pinned, 'raw')).rejects.toThrow(refused);
    expect(descendantPids(process.pid)).toEqual([]);
  });
});

// Smoke test of the real bench (real server processes of both SDKs over stdio). Timing is noisy on
// a shared machine, so the target is not asserted: only that each era's figures are there, and
// that no server process is left.
describe('mcp bench (quick)', () => {
  it('reports calls and first calls of each side in both eras, and leaves nothing behind', async () => {
    const report = await mcpBench.run({ quick: true });
    const json = report.json as {
      eras: Record<string, Record<string, number | string>>;
      modernOverLegacy: Record<string, number>;
    } & Record<string, unknown>;
    expect(Object.keys(json.eras)).toEqual(['2025-11-25', '2026-07-28']);
    for (const [era, figures] of Object.entries(json.eras)) {
      expect(figures.calls, era).toBe(450);
      for (const field of [
        'ratio',
        'rawCallsPerSecond',
        'oursCallsPerSecond',
        'clientCallsPerSecond',
        'firstCallRawMs',
        'firstCallOursMs',
        'firstCallRatio',
      ]) {
        expect(Number.isFinite(figures[field]), `${era} ${field}`).toBe(true);
        expect(figures[field], `${era} ${field}`).toBeGreaterThan(0);
      }
    }
    expect(json.ratio).toBe(json.eras['2025-11-25']?.ratio);
    expect(json.modernRatio).toBe(json.eras['2026-07-28']?.ratio);
    expect(Object.values(json.modernOverLegacy).every(Number.isFinite)).toBe(true);
    expect(report.lines.join('\n')).toContain('2026-07-28 over 2025-11-25');
    expect(descendantPids(process.pid)).toEqual([]);
  }, 300_000);
});
