import { describe, expect, it } from 'vitest';
import { descendantPids, tempDirsNamed } from '../cleanup.js';
import { startupBench } from './startup.js';

// Smoke test of the real bench (built host, real @playwright/mcp). Timing is noisy on a shared
// machine, so the targets are not asserted: only that every figure is there and nothing is left.
describe('startup bench (quick)', () => {
  it('reports ratio, versionRatio and kernelDependencies, and leaves nothing behind', async () => {
    const before = new Set(tempDirsNamed('toolsys-bench-startup-'));
    const report = await startupBench.run({ quick: true });
    const json = report.json as Record<string, number>;
    for (const field of [
      'ratio',
      'versionRatio',
      'oursMs',
      'theirsMs',
      'calculateCallMs',
      'getTimeCallMs',
      'calculateCallRatio',
    ] as const) {
      expect(Number.isFinite(json[field]), field).toBe(true);
      expect(json[field], field).toBeGreaterThan(0);
    }
    expect(Number.isInteger(json.kernelDependencies)).toBe(true);
    expect(report.lines.join('\n')).toContain('versionRatio');
    expect(descendantPids(process.pid)).toEqual([]);
    expect(tempDirsNamed('toolsys-bench-startup-').filter((name) => !before.has(name))).toEqual([]);
  }, 600_000);
});
