import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { descendantPids, tempDirsNamed } from '../cleanup.js';
import { scaleBench } from './scale.js';

/** Waits up to 10 s for the processes the bench signalled to be gone. */
async function settledDescendants(): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const left = descendantPids(process.pid);
    if (left.length === 0) return left;
    await sleep(200);
  }
  return descendantPids(process.pid);
}

// Smoke test of the real bench (real Redis, real HAProxy with deploy/haproxy.cfg, four replicas).
// Timing is noisy on a shared machine, so the cost ratios are not asserted: only that both eras
// were measured, that the 2026-07-28 calls reached every replica and none was lost to the kill,
// and that nothing is left behind.
describe('scale bench (quick)', () => {
  it('measures both eras, spreads the stateless calls, and leaves nothing behind', async () => {
    const before = new Set(tempDirsNamed('toolsys-bench-scale-'));
    const report = await scaleBench.run({ quick: true });
    const json = report.json as Record<string, unknown>;
    for (const field of [
      'ratio',
      'modernRatio',
      'aloneCallsPerSecond',
      'sharedCallsPerSecond',
      'modernAloneCallsPerSecond',
      'modernSharedCallsPerSecond',
    ]) {
      expect(Number.isFinite(json[field]), field).toBe(true);
      expect(json[field], field).toBeGreaterThan(0);
    }
    expect(json.costPhaseErrors).toBe(0);
    expect(Object.keys(json.modernServedBy as object).sort()).toEqual([
      'replica1',
      'replica2',
      'replica3',
    ]);
    expect(json.modernEvenness).toBeGreaterThanOrEqual(0.5);
    expect(json.modernCallsDuringKill).toBeGreaterThan(0);
    expect(json.modernLostOnReplicaKill).toBe(0);
    expect(report.lines.join('\n')).toContain('2026-07-28 3 replicas + Redis via HAProxy');
    expect(await settledDescendants()).toEqual([]);
    expect(tempDirsNamed('toolsys-bench-scale-').filter((name) => !before.has(name))).toEqual([]);
  }, 600_000);
});
