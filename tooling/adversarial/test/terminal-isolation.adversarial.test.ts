import type { ToolResult } from '@toolsys/core-tool-registry';
import { probeCommandSandbox } from '@toolsys/platform';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  type Harness,
} from '../../../packages/platform-terminal/test/support/harness.js';

/*
 * Issue 23 item 9: terminal sessions were shared by every MCP session of a deployment. Session B,
 * which approved nothing, listed A's terminals, read A's approved output, resized it and typed
 * into A's sandboxed session; ids were sequential (t1, t2). Item 22: terminal.run
 * {"sandbox": true} opened a persistent session where permissions.MEDIUM "deny" refuses
 * terminal.create. Real bash on real PTYs (in the real bubblewrap when it can start here).
 */

const sandbox = (await probeCommandSandbox()).available;
const A = { sessionId: 'client-a' };
const B = { sessionId: 'client-b' };

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

/** The data of a successful result; fails the test with the failure otherwise. */
function dataOf<T>(result: ToolResult): T {
  if (!result.ok) throw new Error(`expected success, got: ${result.error.message}`);
  return result.data as T;
}

function errorOf(result: ToolResult): { code: string; field?: string; message: string } {
  if (result.ok) throw new Error(`expected a failure, got: ${result.content}`);
  return {
    code: result.error.code,
    message: result.error.message,
    ...(result.error.field === undefined ? {} : { field: result.error.field }),
  };
}

describe('terminal sessions belong to the client session that opened them', () => {
  it('another client session cannot list, read, resize, type into, signal or close them', async () => {
    const h = await createHarness();
    harness = h;
    const created = await h.call('terminal.create', { sandbox }, A);
    expect(created.ok).toBe(true);
    const id = dataOf<{ sessionId: string }>(created).sessionId;
    const secret = await h.call(
      'terminal.run',
      { sessionId: id, command: 'echo approved-output-of-a' },
      A,
    );
    expect(secret.ok && secret.content).toContain('approved-output-of-a');
    const askedBefore = h.asked.length;

    const listed = await h.call('terminal.workspaces', {}, B);
    expect(listed.ok && listed.content).not.toContain(id);
    expect(dataOf<{ sessions: unknown[] }>(listed).sessions).toEqual([]);

    const missing = 't-00000000000000000000';
    const attempts: [string, Record<string, unknown>][] = [
      ['terminal.observe', { mode: 'raw', cursor: 0 }],
      ['terminal.observe', { mode: 'screen' }],
      ['terminal.observe', { mode: 'state' }],
      ['terminal.snapshot', { scrollbackLines: 100 }],
      ['terminal.resize', { cols: 20, rows: 5 }],
      ['terminal.write', { text: 'touch typed-by-b', keys: ['Enter'] }],
      ['terminal.run', { command: 'touch run-by-b' }],
      ['terminal.wait', { for: 'quiet', quietMs: 50, timeoutMs: 100 }],
      ['terminal.signal', { signal: 'INT' }],
      ['terminal.close', {}],
    ];
    for (const [tool, args] of attempts) {
      const foreign = await h.call(tool, { ...args, sessionId: id }, B);
      const absent = await h.call(tool, { ...args, sessionId: missing }, B);
      const seen = errorOf(foreign);
      expect([tool, seen.code, seen.field]).toEqual([tool, 'NOT_FOUND', 'sessionId']);
      // The same answer as for an id that never existed: no oracle for ids.
      expect(seen.message.replace(id, '<id>')).toBe(
        errorOf(absent).message.replace(missing, '<id>'),
      );
      expect(JSON.stringify(foreign)).not.toContain('approved-output-of-a');
    }
    // Nothing reached A's session: no question was asked, nothing typed, size unchanged.
    expect(h.asked.length).toBe(askedBefore);
    const own = await h.call('terminal.snapshot', { sessionId: id }, A);
    expect(own.ok && (own.data as { cols: number }).cols).toBe(120);
    expect(own.ok && own.content).not.toContain('typed-by-b');
    const stillOpen = await h.call('terminal.workspaces', {}, A);
    expect(stillOpen.ok && stillOpen.content).toContain(id);
  });

  it('another principal presenting the same client session id gets NOT_FOUND (issue 32)', async () => {
    const h = await createHarness();
    harness = h;
    const alice = { ...A, principal: { id: 'alice', kind: 'token', scopes: ['*'] } } as const;
    const bob = { ...A, principal: { id: 'bob', kind: 'token', scopes: ['*'] } } as const;
    const created = await h.call('terminal.create', { sandbox }, alice);
    const id = dataOf<{ sessionId: string }>(created).sessionId;
    const listed = await h.call('terminal.workspaces', {}, bob);
    expect(dataOf<{ sessions: unknown[] }>(listed).sessions).toEqual([]);
    for (const [tool, args] of [
      ['terminal.observe', { mode: 'screen' }],
      ['terminal.write', { text: 'touch typed-by-bob', keys: ['Enter'] }],
      ['terminal.run', { command: 'touch run-by-bob' }],
      ['terminal.close', {}],
    ] as const) {
      const foreign = errorOf(await h.call(tool, { ...args, sessionId: id }, bob));
      expect([tool, foreign.code, foreign.field]).toEqual([tool, 'NOT_FOUND', 'sessionId']);
    }
    const own = await h.call('terminal.workspaces', {}, alice);
    expect(own.ok && own.content).toContain(id);
    await h.manager.endSession(A.sessionId);
    expect(h.manager.list()).toEqual([]);
  });

  it('gives unguessable ids and ends a client session’s terminals with it', async () => {
    const h = await createHarness();
    harness = h;
    const ids: string[] = [];
    for (const who of [A, A, B]) {
      const created = await h.call('terminal.create', { sandbox }, who);
      expect(created.ok).toBe(true);
      ids.push(dataOf<{ sessionId: string }>(created).sessionId);
    }
    for (const id of ids) expect(id).toMatch(/^t-[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);
    const pids = ids.map((id) => h.manager.get(id)?.pid ?? 0);
    await h.manager.endSession(A.sessionId);
    expect(h.manager.list().map((session) => session.id)).toEqual([ids[2]]);
    for (const pid of pids.slice(0, 2)) {
      expect(() => process.kill(pid, 0)).toThrow();
    }
    const gone = await h.call('terminal.observe', { sessionId: ids[0] }, A);
    expect(errorOf(gone).code).toBe('NOT_FOUND');
  });
});

describe('terminal.run never leaves a persistent session the risk gate did not allow', () => {
  it('with MEDIUM "deny", a run in a new session is closed with the call', async () => {
    const h = await createHarness({
      riskGate: true,
      policy: { LOW: 'allow', MEDIUM: 'deny', HIGH: 'ask' },
    });
    harness = h;
    const create = await h.call('terminal.create', { sandbox }, A);
    expect(errorOf(create).code).toBe('PERMISSION_DENIED');
    const run = await h.call(
      'terminal.run',
      { command: 'echo started; sleep 30', sandbox, waitMs: 500 },
      A,
    );
    expect(run.ok).toBe(true);
    if (run.ok) {
      expect(run.data).toMatchObject({ completed: false, sessionClosed: true });
      expect(run.content).toContain('terminal.create');
    }
    expect(h.manager.list()).toEqual([]);
    const listed = await h.call('terminal.workspaces', {}, A);
    expect(dataOf<{ sessions: unknown[] }>(listed).sessions).toEqual([]);
  });
});
