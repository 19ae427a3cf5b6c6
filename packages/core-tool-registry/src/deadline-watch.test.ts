import { describe, expect, it } from 'vitest';
import { DeadlineWatch } from './deadline-watch.js';
import { FakeClock } from './testing/fake-clock.js';

function item(deadline: number, expired: number[]) {
  return { deadline, expire: () => expired.push(deadline) };
}

describe('DeadlineWatch', () => {
  it('expires each item at its own deadline, whatever the order they were watched in', () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: number[] = [];
    watch.watch(item(300, expired));
    watch.watch(item(100, expired));
    watch.watch(item(200, expired));
    clock.advance(99);
    expect(expired).toEqual([]);
    clock.advance(1);
    expect(expired).toEqual([100]);
    clock.advance(100);
    expect(expired).toEqual([100, 200]);
    clock.advance(100);
    expect(expired).toEqual([100, 200, 300]);
    expect(watch.size).toBe(0);
  });

  it('never expires an item unwatched in time, and keeps one timer for many calls', () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: number[] = [];
    for (let call = 0; call < 1_000; call += 1) {
      const entry = item(clock.now() + 1_000, expired);
      watch.watch(entry);
      clock.advance(1);
      watch.unwatch(entry);
    }
    expect(clock.pendingTimers).toBeLessThanOrEqual(1);
    clock.advance(5_000);
    expect(expired).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('re-arms for the earliest remaining deadline after a fire finds nothing due', () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: number[] = [];
    const early = item(100, expired);
    watch.watch(early);
    watch.watch(item(250, expired));
    watch.unwatch(early);
    clock.advance(100);
    expect(expired).toEqual([]);
    clock.advance(150);
    expect(expired).toEqual([250]);
  });

  it('an expiry that throws does not stop the others', () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: number[] = [];
    watch.watch({
      deadline: 10,
      expire: () => {
        throw new Error('boom');
      },
    });
    watch.watch(item(10, expired));
    clock.advance(10);
    expect(expired).toEqual([10]);
  });
});
