import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock.js';
import { DeadlineWatch } from './deadline-watch.js';

const here = dirname(fileURLToPath(import.meta.url));

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

  it('never expires an item unwatched in time, and keeps one timer for overlapping calls', () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const expired: number[] = [];
    // One long call stays in flight while a thousand short ones come and go.
    const long = item(clock.now() + 60_000, expired);
    watch.watch(long);
    for (let call = 0; call < 1_000; call += 1) {
      const entry = item(clock.now() + 1_000, expired);
      watch.watch(entry);
      clock.advance(1);
      watch.unwatch(entry);
    }
    expect(clock.pendingTimers).toBe(1);
    clock.advance(5_000);
    expect(expired).toEqual([]);
    watch.unwatch(long);
    expect(clock.pendingTimers).toBe(0);
  });

  it('on a clock other than the system clock, clears its timer once nothing is watched', () => {
    const clock = new FakeClock();
    const watch = new DeadlineWatch(clock);
    const entry = item(1_000, []);
    watch.watch(entry);
    expect(clock.pendingTimers).toBe(1);
    watch.unwatch(entry);
    // A clock with ordinary (ref'd) timers would otherwise keep a finished process alive.
    expect(clock.pendingTimers).toBe(0);
  });

  it('on the system clock, an idle armed timer does not keep the process alive', () => {
    const module = (name: string) => JSON.stringify(pathToFileURL(join(here, name)).href);
    const script = [
      `import { DeadlineWatch } from ${module('deadline-watch.ts')};`,
      `import { SYSTEM_CLOCK } from ${module('../contract/clock.ts')};`,
      'const watch = new DeadlineWatch(SYSTEM_CLOCK);',
      'const entry = { deadline: SYSTEM_CLOCK.now() + 60_000, expire() {} };',
      'watch.watch(entry);',
      'watch.unwatch(entry);',
    ].join('\n');
    const started = Date.now();
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    // Held by the timer, it would run for the full minute (and be killed at 30 s).
    expect(Date.now() - started).toBeLessThan(25_000);
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
