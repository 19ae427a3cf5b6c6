import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.js';
import { newSession, waitForState } from './support/sessions.js';

// Waiting, process lifetime, listing and bad input, on real bash and a real PTY; nothing is mocked.
let harness: Harness;

beforeEach(async () => {
  harness = await createHarness();
});

afterEach(async () => {
  await harness.dispose();
});

describe('waiting', () => {
  it('waits for a pattern in new output and gives up at its time limit otherwise', async () => {
    const sessionId = await newSession(harness);
    await harness.data('terminal.run', {
      sessionId,
      command: '(sleep 0.3; echo READY-42) &',
      waitMs: 5_000,
    });
    const found = await harness.data<{ matched: boolean; match: string }>('terminal.wait', {
      sessionId,
      for: 'pattern',
      pattern: 'READY-\\d+',
      cursor: 0,
      timeoutMs: 10_000,
    });
    expect(found).toMatchObject({ matched: true, match: 'READY-42' });
    const missed = await harness.data<{ matched: boolean; outcome: string }>('terminal.wait', {
      sessionId,
      for: 'pattern',
      pattern: 'NEVER',
      timeoutMs: 300,
    });
    expect(missed).toMatchObject({ matched: false, outcome: 'timeout' });
  });

  it('waits for the end of a running command and reports progress', async () => {
    const sessionId = await newSession(harness);
    await harness.data('terminal.run', { sessionId, command: 'sleep 2.5; exit 9', waitMs: 0 });
    const events: unknown[] = [];
    const result = await harness.call(
      'terminal.wait',
      { sessionId, for: 'command_end', timeoutMs: 20_000 },
      { onEvent: (event) => events.push(event) },
    );
    expect(result.ok && (result.data as { matched: boolean; exitCode: number })).toMatchObject({
      matched: true,
      exitCode: 9,
    });
    expect(events.some((event) => (event as { type: string }).type === 'progress')).toBe(true);
  });
});

describe('process lifetime', () => {
  it('closing kills the whole process group, background jobs and a setsid child', async () => {
    const sessionId = await newSession(harness);
    const pidFile = join(harness.workspace, 'pids');
    await harness.data('terminal.run', {
      sessionId,
      command: `sleep 1000 & echo $! > ${pidFile}; setsid sh -c 'echo $$ >> ${pidFile}; exec sleep 1000' &`,
    });
    await harness.data('terminal.run', { sessionId, command: `sleep 0.3; cat ${pidFile}` });
    const pids = (await readFile(pidFile, 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    const shellPid = harness.manager.get(sessionId)?.pid ?? 0;
    for (const pid of [...pids, shellPid]) expect(await isAlive(pid)).toBe(true);
    await harness.data('terminal.close', { sessionId });
    for (const pid of [...pids, shellPid]) expect(await isAlive(pid)).toBe(false);
    const gone = await harness.call('terminal.observe', { sessionId });
    expect(gone.ok).toBe(false);
  });

  it('reaps sessions idle past the timeout and ends their processes', async () => {
    await harness.dispose();
    let now = 1_000_000;
    harness = await createHarness({ manager: { idleTimeoutMs: 60_000, now: () => now } });
    const idle = await newSession(harness);
    const pid = harness.manager.get(idle)?.pid ?? 0;
    now += 30_000;
    expect(await harness.manager.reapIdle()).toEqual([]);
    now += 30_000;
    expect(await harness.manager.reapIdle()).toEqual([idle]);
    expect(await isAlive(pid)).toBe(false);
    const listed = await harness.data<{ sessions: unknown[] }>('terminal.workspaces', {});
    expect(listed.sessions).toHaveLength(0);
  });

  it('refuses a session past the limit and says how to free one', async () => {
    await harness.dispose();
    harness = await createHarness({ manager: { maxSessions: 1 } });
    await newSession(harness);
    const refused = await harness.call('terminal.create', {});
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.message).toContain('limit of 1 open sessions');
      expect(refused.error.hint).toContain('terminal.close');
    }
  });

  it('dispose ends every session', async () => {
    const first = await newSession(harness);
    const second = await newSession(harness);
    const pids = [first, second].map((id) => harness.manager.get(id)?.pid ?? 0);
    await harness.manager.dispose();
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
  });
});

describe('listing, resizing and snapshots', () => {
  it('lists sessions with state, cwd and last exit code', async () => {
    const sessionId = await newSession(harness);
    await harness.data('terminal.run', { sessionId, command: 'false' });
    const listed = await harness.data<{ sessions: Record<string, unknown>[]; maxSessions: number }>(
      'terminal.workspaces',
      {},
    );
    expect(listed.sessions).toEqual([
      expect.objectContaining({
        sessionId,
        shell: 'bash',
        state: 'idle',
        cwd: '.',
        lastExitCode: 1,
      }),
    ]);
    expect(listed.maxSessions).toBe(8);
  });

  it('reports the local PTY shells and the proot backend', async () => {
    const backends = await harness.data<{ local: { shells: string[] }; proot: { reason: string } }>(
      'terminal.backends',
      {},
    );
    expect(backends.local.shells).toContain('bash');
    expect(backends.local.shells).toContain('sh');
    expect(backends.proot.reason).toContain('terminal.linux_bootstrap');
  });

  it('resizes the terminal as the program sees it, and returns the cursor and title', async () => {
    const sessionId = await newSession(harness);
    await harness.data('terminal.resize', { sessionId, cols: 91, rows: 17 });
    const run = await harness.data<{ output: string }>('terminal.run', {
      sessionId,
      command: "stty size; printf '\\033]0;my-title\\007'",
    });
    expect(run.output).toContain('17 91');
    const snapshot = await harness.data<{
      cols: number;
      rows: number;
      title: string;
      cursor: { row: number; col: number };
    }>('terminal.snapshot', { sessionId });
    expect(snapshot).toMatchObject({ cols: 91, rows: 17, title: 'my-title' });
    expect(snapshot.cursor.col).toBeGreaterThan(0);
  });

  it('returns scrollback rows above the screen on request', async () => {
    const sessionId = await newSession(harness, { rows: 10 });
    await harness.data('terminal.run', { sessionId, command: 'seq 1 40' });
    const snapshot = await harness.data<{ scrollback: string[] }>('terminal.snapshot', {
      sessionId,
      scrollbackLines: 100,
    });
    expect(snapshot.scrollback).toContain('1');
    expect(snapshot.scrollback).toContain('30');
  });

  it('never shows the shell-integration marks on the screen or in the raw output', async () => {
    const sessionId = await newSession(harness);
    await harness.data('terminal.run', { sessionId, command: 'echo visible' });
    const raw = await harness.data<{ text: string }>('terminal.observe', {
      sessionId,
      mode: 'raw',
      plain: false,
    });
    expect(raw.text).not.toContain('6973');
    const screen = await harness.data<{ lines: string[] }>('terminal.snapshot', { sessionId });
    expect(screen.lines.join('\n')).not.toContain('6973');
  });

  it('gets exit codes from sh through prompt marks', async () => {
    const sessionId = await newSession(harness, { shell: 'sh' });
    const run = await harness.data<{ output: string; completed: boolean; exitCode: number }>(
      'terminal.run',
      { sessionId, command: 'echo from-sh; (exit 5)' },
    );
    expect(run).toMatchObject({ completed: true, exitCode: 5, output: 'from-sh\n' });
    await harness.data('terminal.write', { sessionId, text: 'read answer', keys: ['Enter'] });
    await waitForState(harness, sessionId, 'waiting_for_input');
  });

  it.skipIf(!existsSync('/usr/bin/zsh') && !existsSync('/bin/zsh'))(
    'gets exit codes from zsh through prompt marks',
    async () => {
      const sessionId = await newSession(harness, { shell: 'zsh' });
      const run = await harness.data<{ output: string; exitCode: number }>('terminal.run', {
        sessionId,
        command: 'echo from-zsh; false',
      });
      expect(run).toMatchObject({ exitCode: 1, output: 'from-zsh\n' });
      const screen = await harness.data<{ lines: string[] }>('terminal.snapshot', { sessionId });
      expect(screen.lines.join('\n')).not.toContain('6973');
    },
  );

  it('runs a shell without integration, detecting the end from the terminal state', async () => {
    const sessionId = await newSession(harness, { shell: 'rbash' });
    const run = await harness.data<{ output: string; completed: boolean; exitCode: null }>(
      'terminal.run',
      { sessionId, command: 'echo from-rbash' },
    );
    expect(run.completed).toBe(true);
    expect(run.output).toContain('from-rbash');
    expect(run.exitCode).toBeNull();
    expect(run.content).toContain('no shell integration');
  });
});

describe('bad input', () => {
  it('gives NOT_FOUND naming sessionId for an unknown session', async () => {
    const result = await harness.call('terminal.snapshot', { sessionId: 't999' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('NOT_FOUND');
      expect(result.error.field).toBe('sessionId');
      expect(result.error.hint).toContain('terminal.create');
    }
  });

  it('gives INVALID_ARGUMENT naming the key for a bad key name', async () => {
    const sessionId = await newSession(harness);
    const result = await harness.call('terminal.write', {
      sessionId,
      keys: ['Enter', 'Ctrl-Alt-Banana'],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('INVALID_ARGUMENT');
      expect(result.error.field).toBe('keys.1');
    }
  });

  it('gives INVALID_ARGUMENT naming cwd for a folder outside the workspace, NOT_FOUND for a missing one', async () => {
    const outside = await harness.call('terminal.create', { cwd: '../..' });
    expect(outside.ok).toBe(false);
    if (!outside.ok) {
      expect(outside.error.code).toBe('INVALID_ARGUMENT');
      expect(outside.error.field).toBe('cwd');
    }
    const missing = await harness.call('terminal.create', { cwd: 'nope' });
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');
  });

  it('gives INVALID_ARGUMENT naming the field for negative sizes, a bad regex and a bad shell', async () => {
    const sessionId = await newSession(harness);
    const resize = await harness.call('terminal.resize', { sessionId, cols: -5, rows: 10 });
    expect(!resize.ok && [resize.error.code, resize.error.field]).toEqual([
      'INVALID_ARGUMENT',
      'cols',
    ]);
    const regex = await harness.call('terminal.wait', { sessionId, for: 'pattern', pattern: '(' });
    expect(!regex.ok && [regex.error.code, regex.error.field]).toEqual([
      'INVALID_ARGUMENT',
      'pattern',
    ]);
    const shell = await harness.call('terminal.create', { shell: 'no-such-shell' });
    expect(!shell.ok && [shell.error.code, shell.error.field]).toEqual([
      'INVALID_ARGUMENT',
      'shell',
    ]);
    const empty = await harness.call('terminal.write', { sessionId });
    expect(!empty.ok && empty.error.code).toBe('INVALID_ARGUMENT');
  });
});
