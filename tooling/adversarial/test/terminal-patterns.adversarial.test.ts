import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  type Harness,
} from '../../../packages/platform-terminal/test/support/harness.js';
import { expectResponsiveDuring } from './support/responsiveness.js';

/*
 * Issue 23 item 2: a pattern from the model in terminal.wait ran on the backtracking engine over
 * the session's output; `(a+)+$` on 26-28 characters of output held the whole server for
 * 20-82 s. Each wait here runs on a real bash on a real PTY while another client session pings.
 */

let harness: Harness;
let sessionId: string;

const ping = () => harness.call('terminal.workspaces', {}, { sessionId: 'pinger' });

beforeEach(async () => {
  harness = await createHarness();
  const created = await harness.data<{ sessionId: string }>('terminal.create', {});
  sessionId = created.sessionId;
});

afterEach(async () => {
  await harness.dispose();
});

describe('terminal.wait patterns from the model', () => {
  it('(a+)+$ against a line of a run and one other character does not hold the server', async () => {
    const ran = await harness.data<{ completed: boolean; cursor: number }>('terminal.run', {
      sessionId,
      // 23 `a`s then `!`: ~2^23 backtracking steps per search on a backtracking engine.
      command: "printf 'a%.0s' $(seq 1 23); echo '!'",
    });
    expect(ran.completed).toBe(true);
    const result = await expectResponsiveDuring(
      () =>
        harness.call('terminal.wait', {
          sessionId,
          for: 'pattern',
          pattern: '(a+)+$',
          cursor: 0,
          timeoutMs: 1_000,
        }),
      ping,
    );
    expect(result.ok).toBe(true);
    if (result.ok) expect((result.data as { matched: boolean }).matched).toBe(false);
  });

  it('searches a large output in steps without blocking, and still finds a match at its end', async () => {
    const before = harness.manager.get(sessionId)?.outputEnd ?? 0;
    const result = await expectResponsiveDuring(async () => {
      const waiting = harness.call('terminal.wait', {
        sessionId,
        for: 'pattern',
        pattern: '^(([a-z])+.)+[A-Z]([a-z])+$|FIN(I)SHED-\\d+',
        cursor: before,
        timeoutMs: 20_000,
      });
      await harness.data('terminal.run', {
        sessionId,
        command:
          'for i in $(seq 1 3000); do echo "line $i aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"; done; echo FINISHED-42',
      });
      return waiting;
    }, ping);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.data).toMatchObject({ matched: true, match: 'FINISHED-42' });
    }
  });

  it('refuses what the linear engine cannot run, naming the field, before waiting', async () => {
    for (const pattern of ['(a)\\1', '(?=a)a', '(?!x)y', '(?<n>a)\\k<n>']) {
      const result = await harness.call('terminal.wait', {
        sessionId,
        for: 'pattern',
        pattern,
        timeoutMs: 5_000,
      });
      expect(!result.ok && [result.error.code, result.error.field]).toEqual([
        'INVALID_ARGUMENT',
        'pattern',
      ]);
    }
  });
});
