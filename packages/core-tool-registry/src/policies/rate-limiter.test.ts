import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock.js';
import { ToolRateLimiter } from './rate-limiter.js';

describe('ToolRateLimiter', () => {
  it('allows a full minute quota at once, then rejects immediately with a retry-after', () => {
    const clock = new FakeClock();
    const limiter = new ToolRateLimiter({ clock });
    for (let call = 0; call < 30; call += 1) {
      expect(limiter.tryAcquire('web_fetch', 30)).toEqual({ allowed: true });
    }
    // 30 rpm refills one token every 2 000 ms.
    expect(limiter.tryAcquire('web_fetch', 30)).toEqual({ allowed: false, retryAfterMs: 2_000 });
  });

  it('refills continuously: half a token after half the interval is not enough, a whole one is', () => {
    const clock = new FakeClock();
    const limiter = new ToolRateLimiter({ clock });
    for (let call = 0; call < 120; call += 1) limiter.tryAcquire('read_file', 120);
    clock.advance(250);
    expect(limiter.tryAcquire('read_file', 120)).toEqual({ allowed: false, retryAfterMs: 250 });
    clock.advance(250);
    expect(limiter.tryAcquire('read_file', 120)).toEqual({ allowed: true });
    expect(limiter.tryAcquire('read_file', 120).allowed).toBe(false);
  });

  it('never refills above capacity', () => {
    const clock = new FakeClock();
    const limiter = new ToolRateLimiter({ clock });
    limiter.tryAcquire('a', 2);
    clock.advance(3_600_000);
    expect(limiter.snapshot()).toEqual([{ toolId: 'a', ratePerMinute: 2, tokens: 2 }]);
    limiter.tryAcquire('a', 2);
    limiter.tryAcquire('a', 2);
    expect(limiter.tryAcquire('a', 2).allowed).toBe(false);
  });

  it('keeps one bucket per tool', () => {
    const clock = new FakeClock();
    const limiter = new ToolRateLimiter({ clock });
    limiter.tryAcquire('a', 1);
    expect(limiter.tryAcquire('a', 1).allowed).toBe(false);
    expect(limiter.tryAcquire('b', 1).allowed).toBe(true);
  });

  it('does not limit tools without a quota', () => {
    const limiter = new ToolRateLimiter({ clock: new FakeClock() });
    for (let call = 0; call < 1_000; call += 1) {
      expect(limiter.tryAcquire('write_file', undefined).allowed).toBe(true);
    }
    expect(limiter.snapshot()).toEqual([]);
  });
});
