import { describe, expect, it } from 'vitest';
import { RunPolicies, type ToolRunPolicy } from './tool-run-policy.js';

describe('RunPolicies presets (seed section 2.2)', () => {
  it('quickRead: 30 s, 1 retry, 120 rpm', () => {
    expect(RunPolicies.quickRead).toMatchObject({
      timeoutMs: 30_000,
      maxRetries: 1,
      ratePerMinute: 120,
    });
  });

  it('network: 90 s, 2 retries, 30 rpm', () => {
    expect(RunPolicies.network).toMatchObject({
      timeoutMs: 90_000,
      maxRetries: 2,
      ratePerMinute: 30,
    });
  });

  it('mutating: 60 s, no blind retry, no limit', () => {
    expect(RunPolicies.mutating).toMatchObject({ timeoutMs: 60_000, maxRetries: 0 });
    expect((RunPolicies.mutating as ToolRunPolicy).ratePerMinute).toBeUndefined();
  });

  it('legacy: no timeout, no retry, no limit', () => {
    expect((RunPolicies.legacy as ToolRunPolicy).timeoutMs).toBeUndefined();
    expect(RunPolicies.legacy.maxRetries).toBe(0);
    expect((RunPolicies.legacy as ToolRunPolicy).ratePerMinute).toBeUndefined();
  });

  it('every preset backs off within its cap', () => {
    for (const policy of Object.values(RunPolicies)) {
      expect(policy.backoffBaseMs).toBeLessThanOrEqual(policy.backoffMaxMs);
    }
  });
});
