import { describe, expect, it } from 'vitest';
import { sleep } from '../contract/clock.js';
import { FakeClock, sequenceRandom } from './fake-clock.js';

describe('FakeClock', () => {
  it('fires timers in due order only when time is advanced', () => {
    const clock = new FakeClock({ start: 100 });
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 20);
    clock.setTimeout(() => fired.push('a'), 10);
    const cancelled = clock.setTimeout(() => fired.push('never'), 15);
    clock.clearTimeout(cancelled);
    clock.advance(9);
    expect(fired).toEqual([]);
    clock.advance(11);
    expect(fired).toEqual(['a', 'b']);
    expect(clock.now()).toBe(120);
    expect(clock.pendingTimers).toBe(0);
  });

  it('drives async sleeps without real waiting', async () => {
    const clock = new FakeClock();
    let done = false;
    void sleep(clock, 60_000).then(() => {
      done = true;
    });
    await clock.advanceAsync(59_999);
    expect(done).toBe(false);
    await clock.advanceAsync(1);
    expect(done).toBe(true);
  });

  it('a sleep ends early (false) when its signal aborts', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const pending = sleep(clock, 1_000, controller.signal);
    controller.abort();
    expect(await pending).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('sequenceRandom cycles through its values', () => {
    const random = sequenceRandom([0.1, 0.9]);
    expect([random(), random(), random()]).toEqual([0.1, 0.9, 0.1]);
  });
});
