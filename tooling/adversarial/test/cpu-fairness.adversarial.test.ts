import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResult } from '@toolsys/core-tool-registry';
import type { Deployment, ToolHost } from '@toolsys/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost } from './support/host.js';

// Issue 30 item 17: one session's runaway calculations filled the CPU pool (unbounded queue, no
// fairness) so that another session's `calculate 6*7` waited until its time limit; those time-outs
// opened calculate's breaker for everyone; one session keeping calculate's quota empty got another
// session's calls RATE_LIMITED. Against the real host (the core package as `toolsys serve`
// composes it) with real worker threads.

const RUNAWAY = 'f(n)=n<1?1:f(n-1)+f(n-1); f(40)';
// Long enough for a worker thread to start and load mathjs from the TypeScript sources on a
// loaded 2-core machine (measured up to 15 s), so that no call but the runaways runs out of time.
const RUNAWAY_LIMIT_MS = 25_000;
const QUOTA_PER_MINUTE = 20;
/** A computation of a fraction of a second, long enough to need the second thread. */
const WARM = 'f(n)=n<1?1:f(n-1)+f(n-1); f(12)';

let scratch: string;
let deployment: Deployment;
let host: ToolHost;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-cpu-fair-'));
  ({ deployment, host } = await deployHost(scratch, {
    config: {
      tools: {
        runPolicies: {
          calculate: { timeoutMs: RUNAWAY_LIMIT_MS, ratePerMinute: QUOTA_PER_MINUTE },
        },
      },
    },
  }));
}, 60_000);

afterAll(async () => {
  await deployment?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function calculate(expression: string, sessionId: string): Promise<ToolResult> {
  return host.call('calculate', { expression }, { sessionId, source: 'mcp' });
}

describe('CPU work is shared fairly between sessions (issue 30 item 17)', {
  timeout: 180_000,
}, () => {
  it('another session’s quick calculation runs while one session’s runaways wait their turn, and their time-outs do not open the breaker', async () => {
    // Warm both worker threads (each loads mathjs on its first call; seconds on a loaded
    // machine): two calls long enough that the second cannot wait for the first thread.
    for (let round = 0; round < 2; round += 1) {
      await Promise.all([calculate(WARM, 'warm-a'), calculate(WARM, 'warm-b')]);
    }
    const finished: string[] = [];
    const runaways = Array.from({ length: 5 }, () =>
      calculate(RUNAWAY, 'attacker').then((result) => {
        finished.push('runaway');
        return result;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const quick = await calculate('6*7', 'other');
    finished.push('quick');
    expect(quick).toMatchObject({ ok: true, content: '42' });
    // The quick call did not wait for any runaway to end.
    expect(finished[0]).toBe('quick');
    const ended = await Promise.all(runaways);
    for (const result of ended) expect(result).toMatchObject({ ok: false });
    expect(ended.filter((result) => !result.ok && result.error.code === 'TIMEOUT').length).toBe(5);
    // Five time-outs caused by the attacker's input: calculate still answers everyone.
    expect(await calculate('6*7', 'other')).toMatchObject({ ok: true, content: '42' });
  });

  it('refuses a session’s calls past its waiting list at once as RATE_LIMITED', async () => {
    const calls = Array.from({ length: 20 }, () => calculate(RUNAWAY, 'flooder'));
    const results = await Promise.all(calls);
    const busy = results.filter((result) => !result.ok && result.error.code === 'RATE_LIMITED');
    // One runs, sixteen wait, the rest are refused without waiting.
    expect(busy.length).toBe(3);
    expect(!busy[0]?.ok && busy[0]?.error.message).toBe(
      'calculate: this session already has 1 computation(s) running and 16 waiting',
    );
  });

  it('one session using calculate’s quota up leaves another session its own', async () => {
    let greedyRefused = 0;
    for (let index = 0; index < QUOTA_PER_MINUTE + 5; index++) {
      const result = await calculate(`${index}+1`, 'greedy');
      if (!result.ok && result.error.code === 'RATE_LIMITED') greedyRefused += 1;
    }
    expect(greedyRefused).toBeGreaterThan(0);
    const others: ToolResult[] = [];
    for (let index = 0; index < 10; index++) others.push(await calculate(`${index}*2`, 'patient'));
    expect(others.filter((result) => !result.ok)).toEqual([]);
  });
});
