import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.js';
import { newSession, waitForState } from './support/sessions.js';

// Real bash on a real PTY throughout; nothing is mocked.
let harness: Harness;

beforeEach(async () => {
  harness = await createHarness();
});

afterEach(async () => {
  await harness.dispose();
});

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
    const sessionId = await newSession(harness);
    const run = await harness.data<{ output: string; exitCode: number }>('terminal.run', {
      sessionId,
      command: 'echo to-out; echo to-err >&2; false',
    });
    expect(run.exitCode).toBe(1);
    expect(run.output).toBe('to-out\nto-err\n');
  });

  it('keeps state between commands and runs a multi-line command as one', async () => {
    const sessionId = await newSession(harness);
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
    const sessionId = await newSession(harness);
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
    const sessionId = await newSession(harness);
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
    await waitForState(harness, sessionId, 'idle');
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
    const sessionId = await newSession(harness);
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
    await waitForState(harness, sessionId, 'idle');
    const events = await harness.data<{ events: { kind: string; exitCode: number | null }[] }>(
      'terminal.observe',
      { sessionId, mode: 'events' },
    );
    expect(events.events.at(-1)).toMatchObject({ kind: 'command_end', exitCode: 0 });
  });

  it('detects a program reading the terminal (cat) as waiting_for_input and a sleeping one as running', async () => {
    const sessionId = await newSession(harness);
    await harness.data('terminal.write', { sessionId, text: 'cat', keys: ['Enter'] });
    await waitForState(harness, sessionId, 'waiting_for_input');
    await harness.data('terminal.write', { sessionId, keys: ['C-d'] });
    await waitForState(harness, sessionId, 'idle');
    await harness.data('terminal.write', { sessionId, text: 'sleep 100', keys: ['Enter'] });
    await waitForState(harness, sessionId, 'running');
  });

  it('stops sleep 100 with C-c', async () => {
    const sessionId = await newSession(harness);
    await harness.data('terminal.run', { sessionId, command: 'sleep 100', waitMs: 200 });
    await harness.data('terminal.write', { sessionId, keys: ['C-c'] });
    await waitForState(harness, sessionId, 'idle');
    const state = await harness.data<{ lastExitCode: number }>('terminal.observe', {
      sessionId,
      mode: 'state',
    });
    expect(state.lastExitCode).toBe(130);
  });

  it('snapshots less on the alternate screen and quits it', async () => {
    const sessionId = await newSession(harness, { cols: 80, rows: 20 });
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
    await waitForState(harness, sessionId, 'idle');
  });

  it.skipIf(!existsSync('/usr/bin/vim'))(
    'edits a file in vim with keystrokes and sees the screen change',
    async () => {
      const sessionId = await newSession(harness, { cols: 80, rows: 12 });
      await writeFile(join(harness.workspace, 'note.txt'), 'first line\n');
      await harness.data('terminal.write', {
        sessionId,
        text: 'vim -u NONE -N note.txt',
        keys: ['Enter'],
      });
      await waitForState(harness, sessionId, 'waiting_for_input');
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
      await waitForState(harness, sessionId, 'idle');
      expect(await readFile(join(harness.workspace, 'note.txt'), 'utf8')).toBe(
        'added by the agent\nfirst line\n',
      );
    },
  );

  it('follows streaming output (top -b) incrementally by cursor without repeating a byte', async () => {
    const sessionId = await newSession(harness);
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
    await waitForState(harness, sessionId, 'idle');
  });
});

describe('output ring', () => {
  it('passes 10 MB through one session with bounded memory and an honest dropped count', async () => {
    const sessionId = await newSession(harness);
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
    const sessionId = await newSession(harness);
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
