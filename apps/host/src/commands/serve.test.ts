import { describe, expect, it } from 'vitest';
import { readServerLimit } from './serve.js';
import { UsageError } from './types.js';

describe('readServerLimit', () => {
  it('gives the default when the key is absent', () => {
    expect(readServerLimit({}, 'maxSessions', 100)).toBe(100);
  });

  it('reads a positive whole number', () => {
    expect(readServerLimit({ maxSessions: 5 }, 'maxSessions', 100)).toBe(5);
    expect(readServerLimit({ sessionIdleSeconds: 60 }, 'sessionIdleSeconds', 1800)).toBe(60);
  });

  it('refuses zero, negatives, fractions and strings with a usage error naming the key', () => {
    for (const value of [0, -1, 1.5, '10', null]) {
      expect(() => readServerLimit({ maxSessions: value }, 'maxSessions', 100)).toThrow(
        new UsageError(
          `server.maxSessions in the config must be a positive whole number, got ${JSON.stringify(value)}.`,
        ),
      );
    }
  });
});
