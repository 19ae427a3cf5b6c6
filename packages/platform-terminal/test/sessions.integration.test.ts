import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.js';

// Real bash on a real PTY throughout; nothing is mocked.
let harness: Harness;

beforeEach(async () => {
  harness = await createHarness();
});

afterEach(async () => {
  await harness.dispose();
});

async function newSession(args: Record<string, unknown> = {}): Promise<string> {
  const created = await harness.data<{ sessionId: string; state: string }>('terminal.create', args);
  expect(created.state).toBe('idle');
  return created.sessionId;
}

async function waitForState(sessionId: string, state: string): Promise<void> {
  const waited = await harness.data<{ matched: boolean }>('terminal.wait', {
    sessionId,
    for: 'state',
    state,
    timeoutMs: 10_000,
  });
  expect(waited.matched).toBe(true);
}

describe('terminal.run', () => {
  it('makes a session for the call when none is named, with output and the exit code', async () => {
    const run = await harness.data<{
      output: string;
      exitCode: number;
      completed: boolean;
      sessionClosed: boolean;
    }>('terminal.run', { command: 'echo hi; exit 3' });
    expect(run.completed).toBe(true);
    expect(run.exitCode).toBe(3);
    expect(run.output).toContain('hi');
    expect(run.content).toContain('exit code 3');
    expect(run.sessionClosed).toBe(true);
    expect(harness.manager.list()).toHaveLength(0);
  });

  it('returns stdout and stderr of a command and its exit code, without the echoed command line', async () => {
    const sessionId = await newSession();
    const run = await harness.data<{ output: string; exitCode: number }>('terminal.run', {
      sessionId,
      command: 'echo to-out; echo to-err >&2; false',
    });
    expect(run.exitCode).toBe(1);
    expect(run.output).toBe('to-out\nto-err\n');
  });

  it('keeps state between commands and runs a multi-line command as one', async () => {
    const sessionId = await newSession();
    await harness.data('terminal.run', { sessionId, command: 'mkdir -p sub && cd sub && X=42' });
    const run = await harness.data<{ output: string; exitCode: number }>('terminal.run', {
      sessionId,
      command: 'echo "$X"\npwd',
    });
    expect(run.exitCode).toBe(0);
    expect(run.output).toContain('42');
    expect(run.output).toContain(`${harness.workspace}/sub`);
    const state = await harness.data<{ cwd: string }>('terminal.observe', {
      sessionId,
      mode: 'state',
    });
    expect(state.cwd).toBe('sub');
  });

  it('keeps all stderr of a command that exits at once, 200 runs out of 200', async () => {
    const sessionId = await newSession();
    let complete = 0;
    for (let index = 0; index < 200; index += 1) {
      const run = await harness.data<{ output: string; exitCode: number }>('terminal.run', {
        sessionId,
        command: `/bin/sh -c 'printf "err-${index}-%0300d-end" 0 >&2; exit 7'`,
      });
      if (run.exitCode === 7 && run.output.includes(`err-${index}-${'0'.repeat(300)}-end`))
        complete += 1;
    }
    expect(complete).toBe(200);
  }, 180_000);

  it('never waits past waitMs: a hung command comes back as still running with a cursor', async () => {
    const sessionId = await newSession();
    const run = await harness.data<{ completed: boolean; state: string; cursor: number }>(
      'terminal.run',
      {
        sessionId,
        command: 'echo started; sleep 600',
        waitMs: 500,
      },
    );
    expect(run.completed).toBe(false);
    expect(run.state).toBe('running');
    expect(run.content).toContain('Still running');
    expect(run.content).toContain('started');
    const busy = await harness.call('terminal.run', { sessionId, command: 'echo again' });
    expect(busy.ok).toBe(false);
    if (!busy.ok) expect(busy.error.message).toContain('busy (running)');
    const signalled = await harness.data<{ state: string }>('terminal.signal', {
      sessionId,
      signal: 'INT',
    });
    expect(signalled.content).toContain('SIGINT');
    await waitForState(sessionId, 'idle');
  });

  it('refuses a command on the deny-list before anything runs', async () => {
    const result = await harness.call('terminal.run', { command: 'rm -rf /' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('PERMISSION_DENIED');
      expect(result.error.field).toBe('command');
    }
  });
});

describe('interactive input and state', () => {
  it('detects a read -p prompt as waiting_for_input and answers it with terminal.write', async () => {
    const sessionId = await newSession();
    const run = await harness.data<{ completed: boolean; state: string }>('terminal.run', {
      sessionId,
      command: 'read -p "Your name? " name; echo "hello $name"',
      waitMs: 1_000,
    });
    expect(run.completed).toBe(false);
    expect(run.state).toBe('waiting_for_input');
    const typed = await harness.data<{ screen: string[]; state: string }>('terminal.write', {
      sessionId,
      text: 'Ada',
      keys: ['Enter'],
    });
    expect(typed.screen.join('\n')).toContain('hello Ada');
    await waitForState(sessionId, 'idle');
    const events = await harness.data<{ events: { kind: string; exitCode: number | null }[] }>(
      'terminal.observe',
      { sessionId, mode: 'events' },
    );
    expect(events.events.at(-1)).toMatchObject({ kind: 'command_end', exitCode: 0 });
  });

  it('detects a program reading the terminal (cat) as waiting_for_input and a sleeping one as running', async () => {
    const sessionId = await newSession();
    await harness.data('terminal.write', { sessionId, text: 'cat', keys: ['Enter'] });
    await waitForState(sessionId, 'waiting_for_input');
    await harness.data('terminal.write', { sessionId, keys: ['C-d'] });
    await waitForState(sessionId, 'idle');
    await harness.data('terminal.write', { sessionId, text: 'sleep 100', keys: ['Enter'] });
    await waitForState(sessionId, 'running');
  });

  it('stops sleep 100 with C-c', async () => {
    const sessionId = await newSession();
    await harness.data('terminal.run', { sessionId, command: 'sleep 100', waitMs: 200 });
    await harness.data('terminal.write', { sessionId, keys: ['C-c'] });
    await waitForState(sessionId, 'idle');
    const state = await harness.data<{ lastExitCode: number }>('terminal.observe', {
      sessionId,
      mode: 'state',
    });
    expect(state.lastExitCode).toBe(130);
  });

  it('snapshots less on the alternate screen and quits it', async () => {
    const sessionId = await newSession({ cols: 80, rows: 20 });
    await harness.data('terminal.run', { sessionId, command: 'seq 1 500 > numbers.txt' });
    await harness.data('terminal.write', { sessionId, text: 'less numbers.txt', keys: ['Enter'] });
    const wait = await harness.data<{ matched: boolean }>('terminal.wait', {
      sessionId,
      for: 'state',
      state: 'waiting_for_input',
      timeoutMs: 10_000,
    });
    expect(wait.matched).toBe(true);
    const screen = await harness.data<{ lines: string[]; alternateScreen: boolean }>(
      'terminal.snapshot',
      {
        sessionId,
      },
    );
    expect(screen.alternateScreen).toBe(true);
    expect(screen.lines.slice(0, 3)).toEqual(['1', '2', '3']);
    const paged = await harness.data<{ screen: string[] }>('terminal.write', {
      sessionId,
      keys: ['Space'],
    });
    expect(paged.screen[0]).toBe('20');
    const quit = await harness.data<{ alternateScreen: boolean; screen: string[] }>(
      'terminal.write',
      {
        sessionId,
        text: 'q',
      },
    );
    expect(quit.alternateScreen).toBe(false);
    await waitForState(sessionId, 'idle');
  });

  it.skipIf(!existsSync('/usr/bin/vim'))(
    'edits a file in vim with keystrokes and sees the screen change',
    async () => {
      const sessionId = await newSession({ cols: 80, rows: 12 });
      await writeFile(join(harness.workspace, 'note.txt'), 'first line\n');
      await harness.data('terminal.write', {
        sessionId,
        text: 'vim -u NONE -N note.txt',
        keys: ['Enter'],
      });
      await waitForState(sessionId, 'waiting_for_input');
      const opened = await harness.data<{ lines: string[]; alternateScreen: boolean }>(
        'terminal.snapshot',
        {
          sessionId,
        },
      );
      expect(opened.alternateScreen).toBe(true);
      expect(opened.lines[0]).toBe('first line');
      const typed = await harness.data<{ screen: string[] }>('terminal.write', {
        sessionId,
        text: 'Oadded by the agent',
        keys: ['Esc'],
      });
      expect(typed.screen.slice(0, 2)).toEqual(['added by the agent', 'first line']);
      await harness.data('terminal.write', { sessionId, text: ':wq', keys: ['Enter'] });
      await waitForState(sessionId, 'idle');
      expect(await readFile(join(harness.workspace, 'note.txt'), 'utf8')).toBe(
        'added by the agent\nfirst line\n',
      );
    },
  );

  it('follows streaming output (top -b) incrementally by cursor without repeating a byte', async () => {
    const sessionId = await newSession();
    const run = await harness.data<{ cursor: number; completed: boolean }>('terminal.run', {
      sessionId,
      command: 'for i in 1 2 3 4 5 6; do echo "tick $i"; top -b -n 1 | head -n 3; sleep 0.2; done',
      waitMs: 0,
    });
    let cursor = 0;
    let text = '';
    for (let attempt = 0; attempt < 50 && !text.includes('tick 6'); attempt += 1) {
      const read = await harness.data<{
        text: string;
        nextCursor: number;
        droppedBytes: number;
        from: number;
      }>('terminal.observe', { sessionId, mode: 'raw', cursor, plain: false });
      expect(read.from).toBe(cursor);
      expect(read.droppedBytes).toBe(0);
      text += read.text;
      cursor = read.nextCursor;
      await harness.call('terminal.wait', {
        sessionId,
        for: 'quiet',
        quietMs: 100,
        timeoutMs: 500,
      });
    }
    expect(run.completed).toBe(false);
    for (let tick = 1; tick <= 6; tick += 1) {
      // Raw output keeps escape sequences and carriage returns, shown as escapes (`\r`).
      expect(text.split(`tick ${tick}\\r\n`)).toHaveLength(2);
    }
    expect(text).toContain('load average');
    await waitForState(sessionId, 'idle');
  });
});

describe('output ring', () => {
  it('passes 10 MB through one session with bounded memory and an honest dropped count', async () => {
    const sessionId = await newSession();
    const run = await harness.data<{ exitCode: number; outputBytes: number; droppedBytes: number }>(
      'terminal.run',
      {
        sessionId,
        command: "head -c 10000000 /dev/zero | tr '\\0' 'x'; echo; echo END",
        waitMs: 100_000,
      },
    );
    expect(run.exitCode).toBe(0);
    expect(run.outputBytes).toBeGreaterThanOrEqual(10_000_000);
    expect(run.droppedBytes).toBeGreaterThan(9_000_000);
    const session = harness.manager.get(sessionId);
    expect(session?.outputEnd).toBeGreaterThanOrEqual(10_000_000);
    type RawRead = {
      text: string;
      droppedBytes: number;
      from: number;
      nextCursor: number;
      pendingBytes: number;
    };
    const read = await harness.data<RawRead>('terminal.observe', {
      sessionId,
      mode: 'raw',
      cursor: 0,
      maxBytes: 1_048_576,
    });
    expect(read.droppedBytes).toBe((session?.outputEnd ?? 0) - 256 * 1024);
    expect(read.from).toBe(read.droppedBytes);
    expect(read.content).toContain(`${read.droppedBytes} bytes before it were dropped`);
    // One call shows at most 90,000 characters (the text is in the result twice, within one
    // result's budget); its cursor says where it ended, and the next calls read the rest whole.
    expect(read.text.length).toBeLessThanOrEqual(90_000);
    expect(read.pendingBytes).toBe(256 * 1024 - (read.nextCursor - read.from));
    let shown = read.nextCursor - read.from;
    let next = read;
    while (next.pendingBytes > 0) {
      next = await harness.data<RawRead>('terminal.observe', {
        sessionId,
        mode: 'raw',
        cursor: next.nextCursor,
        maxBytes: 1_048_576,
      });
      expect(next.droppedBytes).toBe(0);
      expect(next.text.length).toBeLessThanOrEqual(90_000);
      shown += next.nextCursor - next.from;
    }
    expect(shown).toBe(256 * 1024);
    expect(next.nextCursor).toBe(session?.outputEnd);
    expect(next.text).toContain('END');
  }, 120_000);

  it('keeps output readable after the shell has exited', async () => {
    const sessionId = await newSession();
    const run = await harness.data<{ exitCode: number }>('terminal.run', {
      sessionId,
      command: 'echo last-words; exit 4',
    });
    expect(run.exitCode).toBe(4);
    const state = await harness.data<{ state: string; lastExitCode: number }>('terminal.observe', {
      sessionId,
      mode: 'state',
    });
    expect(state).toMatchObject({ state: 'exited', lastExitCode: 4 });
    const raw = await harness.data<{ text: string }>('terminal.observe', {
      sessionId,
      mode: 'raw',
    });
    expect(raw.text).toContain('last-words');
    const refused = await harness.call('terminal.write', { sessionId, text: 'x' });
    expect(refused.ok).toBe(false);
  });
});

describe('waiting', () => {
  it('waits for a pattern in new output and gives up at its time limit otherwise', async () => {
    const sessionId = await newSession();
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
    const sessionId = await newSession();
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
    const sessionId = await newSession();
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
    const idle = await newSession();
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
    await newSession();
    const refused = await harness.call('terminal.create', {});
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.message).toContain('limit of 1 open sessions');
      expect(refused.error.hint).toContain('terminal.close');
    }
  });

  it('dispose ends every session', async () => {
    const first = await newSession();
    const second = await newSession();
    const pids = [first, second].map((id) => harness.manager.get(id)?.pid ?? 0);
    await harness.manager.dispose();
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
  });
});

describe('listing, resizing and snapshots', () => {
  it('lists sessions with state, cwd and last exit code', async () => {
    const sessionId = await newSession();
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
    const sessionId = await newSession();
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
    const sessionId = await newSession({ rows: 10 });
    await harness.data('terminal.run', { sessionId, command: 'seq 1 40' });
    const snapshot = await harness.data<{ scrollback: string[] }>('terminal.snapshot', {
      sessionId,
      scrollbackLines: 100,
    });
    expect(snapshot.scrollback).toContain('1');
    expect(snapshot.scrollback).toContain('30');
  });

  it('never shows the shell-integration marks on the screen or in the raw output', async () => {
    const sessionId = await newSession();
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
    const sessionId = await newSession({ shell: 'sh' });
    const run = await harness.data<{ output: string; completed: boolean; exitCode: number }>(
      'terminal.run',
      { sessionId, command: 'echo from-sh; (exit 5)' },
    );
    expect(run).toMatchObject({ completed: true, exitCode: 5, output: 'from-sh\n' });
    await harness.data('terminal.write', { sessionId, text: 'read answer', keys: ['Enter'] });
    await waitForState(sessionId, 'waiting_for_input');
  });

  it.skipIf(!existsSync('/usr/bin/zsh') && !existsSync('/bin/zsh'))(
    'gets exit codes from zsh through prompt marks',
    async () => {
      const sessionId = await newSession({ shell: 'zsh' });
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
    const sessionId = await newSession({ shell: 'rbash' });
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
    const sessionId = await newSession();
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
    const sessionId = await newSession();
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
