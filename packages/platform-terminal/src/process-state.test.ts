import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { findSessionProcesses, hasEnvironmentEntry, readProcessStat } from './process-state.js';

// Real child processes; each is killed by its own pid after the test.
const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already ended.
    }
  }
});

describe('process-state', () => {
  it('reads the stat of a live process and nothing for a missing one', async () => {
    const own = await readProcessStat(process.pid);
    expect(own?.pid).toBe(process.pid);
    expect(own?.parentPid).toBe(process.ppid);
    expect(await readProcessStat(2 ** 30)).toBeUndefined();
  });

  it('finds a detached process by its environment marker', async () => {
    const marker = `TOOLSYS_TERMINAL_SESSION=test${process.pid}`;
    const child = spawn('sleep', ['30'], {
      detached: true,
      stdio: 'ignore',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TOOLSYS_TERMINAL_SESSION: `test${process.pid}`,
      },
    });
    const pid = child.pid ?? 0;
    started.push(pid);
    expect(await hasEnvironmentEntry(pid, marker)).toBe(true);
    expect(await hasEnvironmentEntry(pid, `${marker}x`)).toBe(false);
    // A leader pid that does not exist: only the marker can find the child.
    expect(await findSessionProcesses(2 ** 30, marker)).toEqual([pid]);
  });
});
