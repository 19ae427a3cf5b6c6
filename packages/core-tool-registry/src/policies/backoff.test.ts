import { describe, expect, it } from 'vitest';
import { sequenceRandom } from '../testing/fake-clock.js';
import { fullJitterBackoff } from './backoff.js';

describe('fullJitterBackoff', () => {
  it('draws from 0 .. base * 2^attempt', () => {
    expect(fullJitterBackoff(1, { baseMs: 200, maxMs: 10_000, random: () => 0.5 })).toBe(200);
    expect(fullJitterBackoff(2, { baseMs: 200, maxMs: 10_000, random: () => 0.5 })).toBe(400);
    expect(fullJitterBackoff(3, { baseMs: 200, maxMs: 10_000, random: () => 0.999 })).toBe(1598);
  });

  it('can wait zero (full jitter starts at 0)', () => {
    expect(fullJitterBackoff(4, { baseMs: 500, maxMs: 8_000, random: () => 0 })).toBe(0);
  });

  it('never exceeds maxMs', () => {
    const random = sequenceRandom([0.99, 0.5, 0.999]);
    for (let attempt = 1; attempt < 20; attempt += 1) {
      expect(fullJitterBackoff(attempt, { baseMs: 500, maxMs: 8_000, random })).toBeLessThan(8_000);
    }
  });

  it('is 0 for policies without backoff', () => {
    expect(fullJitterBackoff(1, { baseMs: 0, maxMs: 0, random: () => 0.9 })).toBe(0);
  });
});
