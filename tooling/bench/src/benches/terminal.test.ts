import { describe, expect, it } from 'vitest';
import { descendantPids, tempDirsNamed } from '../cleanup.js';
import { terminalBench } from './terminal.js';

// Smoke test of the real bench: our host and Desktop Commander over stdio, a real PTY and shells.
// Timing is noisy on a shared machine, so the targets are not asserted, only that every figure
// is there and finite and that nothing is left running or on disk.
describe('terminal bench (quick)', () => {
  it('reports ratio, ratioBulk and both stderr counts, and leaves nothing behind', async () => {
    const before = new Set(tempDirsNamed('toolsys-bench-terminal-'));
    const report = await terminalBench.run({ quick: true });
    const json = report.json as Record<string, number>;
    for (const field of ['ratio', 'ratioBulk', 'oursP50Ms', 'theirsP50Ms'] as const) {
      expect(Number.isFinite(json[field]), field).toBe(true);
      expect(json[field], field).toBeGreaterThan(0);
    }
    for (const field of ['stderrComplete', 'stderrCompletePeer'] as const) {
      expect(Number.isInteger(json[field]), field).toBe(true);
      expect(json[field], field).toBeGreaterThanOrEqual(0);
      expect(json[field], field).toBeLessThanOrEqual(json.stderrRuns as number);
    }
    expect(json.stderrRuns).toBe(10);
    expect(json.bulkComplete).toBeLessThanOrEqual(json.bulkRuns as number);
    expect(report.lines.join('\n')).toContain('ratioBulk');
    expect(typeof report.met).toBe('boolean');
    // Every server and shell the bench started has ended; its temp directory is gone.
    expect(descendantPids(process.pid)).toEqual([]);
    expect(tempDirsNamed('toolsys-bench-terminal-').filter((name) => !before.has(name))).toEqual(
      [],
    );
  }, 120_000);
});
