import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runProcess } from './process-runner.js';
import {
  currentTaskMark,
  runWithTaskMark,
  signalMarkedProcesses,
  TASK_MARK_VARIABLE,
  withTaskMark,
} from './process-scope.js';

describe('task marks', () => {
  it('adds the mark to an environment only inside a task', () => {
    expect(withTaskMark({ A: '1' })).toEqual({ A: '1' });
    runWithTaskMark('m-1', () => {
      expect(currentTaskMark()).toBe('m-1');
      expect(withTaskMark({ A: '1' })).toEqual({ A: '1', [TASK_MARK_VARIABLE]: 'm-1' });
    });
    expect(currentTaskMark()).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    'ends a command started in a task by its mark, though its runner was never cancelled',
    async () => {
      const mark = randomBytes(12).toString('hex');
      const run = runWithTaskMark(mark, () =>
        runProcess({ command: 'exec sleep 30', cwd: process.cwd(), timeoutMs: 60_000 }),
      );
      let signalled: number[] = [];
      for (let tries = 0; tries < 100 && signalled.length === 0; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        signalled = await signalMarkedProcesses(TASK_MARK_VARIABLE, mark, 'SIGKILL');
      }
      const outcome = await run;
      expect(signalled).toHaveLength(1);
      expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGKILL', aborted: false });
      expect(await signalMarkedProcesses(TASK_MARK_VARIABLE, mark)).toEqual([]);
    },
  );
});
