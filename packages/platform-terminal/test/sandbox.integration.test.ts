import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import {
  type ConfirmationDecision,
  type ConfirmationRequest,
  renderResult,
} from '@toolsys/core-tool-registry';
import { isAlive } from '@toolsys/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { addDescendants, listProcesses } from '../src/process-state.js';
import { createHarness, type Harness } from './support/harness.js';

// Real bash on a real PTY inside the real bubblewrap sandbox (bwrap on PATH); nothing is mocked.
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

async function start(options: Parameters<typeof createHarness>[0] = {}): Promise<Harness> {
  harness = await createHarness(options);
  return harness;
}

async function sandboxedSession(h: Harness): Promise<string> {
  const created = await h.data<{ sessionId: string; state: string; sandboxed: boolean }>(
    'terminal.create',
    { sandbox: true },
  );
  expect(created.sandboxed).toBe(true);
  expect(created.state).toBe('idle');
  return created.sessionId;
}

interface RunData {
  output: string;
  exitCode: number | null;
  completed: boolean;
  state: string;
}

function run(h: Harness, sessionId: string, command: string, waitMs = 10_000) {
  return h.data<RunData>('terminal.run', { sessionId, command, waitMs });
}

async function waitForState(h: Harness, sessionId: string, state: string): Promise<void> {
  const waited = await h.data<{ matched: boolean }>('terminal.wait', {
    sessionId,
    for: 'state',
    state,
    timeoutMs: 10_000,
  });
  expect(waited.matched).toBe(true);
}

/** Host pids of a process and everything below it. */
async function processTree(pid: number): Promise<number[]> {
  return [...addDescendants(await listProcesses(), new Set([pid]))];
}

/** How many of these processes run `sleep`. */
async function sleepsAmong(pids: readonly number[]): Promise<number> {
  const names = await Promise.all(
    pids.map((pid) => readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')),
  );
  return names.filter((name) => name.trim() === 'sleep').length;
}

describe('a sandboxed session', () => {
  it('starts without a question and runs its input without asking', async () => {
    const h = await start();
    const sessionId = await sandboxedSession(h);
    const ran = await run(h, sessionId, 'echo in-the-sandbox');
    expect(ran.output).toBe('in-the-sandbox\n');
    const typed = await h.data<{ state: string }>('terminal.write', {
      sessionId,
      text: 'echo typed',
      keys: ['Enter'],
    });
    expect(typed.state).toBe('idle');
    expect(h.asked).toEqual([]);
    const listed = await h.data<{ sessions: { sandboxed: boolean }[]; content: string }>(
      'terminal.workspaces',
      {},
    );
    expect(listed.sessions[0]?.sandboxed).toBe(true);
    expect(listed.content).toContain('(local, sandboxed) idle');
  });

  it('reads the workspace but writes only its own /tmp, and sees nothing beside the workspace', async () => {
    const h = await start();
    await writeFile(join(h.workspace, 'inside.txt'), 'inside\n');
    await writeFile(join(dirname(h.workspace), 'outside.txt'), 'outside\n');
    const sessionId = await sandboxedSession(h);

    expect(await run(h, sessionId, 'cat inside.txt')).toMatchObject({
      output: 'inside\n',
      exitCode: 0,
    });
    const overwrite = await run(h, sessionId, 'echo changed > inside.txt');
    expect(overwrite.exitCode).toBe(1);
    expect(overwrite.output).toContain('Read-only file system');
    expect(await readFile(join(h.workspace, 'inside.txt'), 'utf8')).toBe('inside\n');

    // The folders above the workspace are the sandbox's own (inside its /tmp here): a file made
    // there never reaches the host.
    await run(h, sessionId, 'touch ../escape');
    expect(existsSync(join(dirname(h.workspace), 'escape'))).toBe(false);
    expect((await run(h, sessionId, 'touch /usr/escape')).output).toContain(
      'Read-only file system',
    );
    // The root and /etc are the sandbox's own too (only chosen files of the host's /etc are bound).
    await run(h, sessionId, 'touch /escape /etc/escape');
    for (const path of ['/usr/escape', '/escape', '/etc/escape'])
      expect(existsSync(path)).toBe(false);
    const outside = await run(h, sessionId, 'cat ../outside.txt');
    expect(outside.exitCode).toBe(1);
    expect(outside.output).toContain('No such file or directory');

    expect(await run(h, sessionId, 'echo "$HOME"; echo scratch > ~/note && cat ~/note')).toEqual(
      expect.objectContaining({ output: '/tmp\nscratch\n', exitCode: 0 }),
    );
    expect((await run(h, sessionId, 'test -e /etc/shadow')).exitCode).toBe(1);
  });

  it('cannot reach the network, not even a server on 127.0.0.1 that an unsandboxed session reaches', async () => {
    const h = await start();
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const probe = `(exec 3<>/dev/tcp/127.0.0.1/${address.port}) 2>/dev/null && echo connected || echo refused`;

      const sandboxed = await sandboxedSession(h);
      expect((await run(h, sandboxed, probe)).output).toBe('refused\n');
      expect(
        (await run(h, sandboxed, 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')).output,
      ).toBe('lo\n');
      expect(connections).toBe(0);

      const open = await h.data<{ sessionId: string }>('terminal.create', {});
      expect((await run(h, open.sessionId, probe)).output).toBe('connected\n');
      expect(connections).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('has its own PID namespace: the shell is pid 2 and no host process is visible', async () => {
    const h = await start();
    const sessionId = await sandboxedSession(h);
    expect((await run(h, sessionId, 'echo $$')).output).toBe('2\n');
    const visible = await run(h, sessionId, `ls /proc | grep -c '^[0-9]'`);
    expect(Number(visible.output.trim())).toBeLessThan(6);
    expect(
      (await run(h, sessionId, `test -e /proc/${process.pid} && echo seen || echo hidden`)).output,
    ).toBe('hidden\n');
  });

  it('tells idle, running and waiting_for_input apart, with exit codes and the current folder', async () => {
    const h = await start();
    await mkdir(join(h.workspace, 'sub'));
    const sessionId = await sandboxedSession(h);

    expect((await run(h, sessionId, 'cd sub && false')).exitCode).toBe(1);
    const idle = await h.data<{ state: string; cwd: string; lastExitCode: number }>(
      'terminal.observe',
      { sessionId, mode: 'state' },
    );
    expect(idle).toMatchObject({ state: 'idle', cwd: 'sub', lastExitCode: 1 });

    const asking = await run(h, sessionId, 'read -p "name? " answer; echo "hello $answer"', 300);
    expect(asking.completed).toBe(false);
    await waitForState(h, sessionId, 'waiting_for_input');
    await h.data('terminal.write', { sessionId, text: 'sandbox', keys: ['Enter'] });
    await waitForState(h, sessionId, 'idle');
    const events = await h.data<{ content: string }>('terminal.observe', {
      sessionId,
      mode: 'screen',
    });
    expect(events.content).toContain('hello sandbox');

    const sleeping = await run(h, sessionId, 'sleep 30', 300);
    expect(sleeping.completed).toBe(false);
    expect(sleeping.state).toBe('running');
    await h.data('terminal.signal', { sessionId, signal: 'INT' });
    await waitForState(h, sessionId, 'idle');

    expect((await run(h, sessionId, 'cat', 300)).completed).toBe(false);
    await waitForState(h, sessionId, 'waiting_for_input');
    await h.data('terminal.write', { sessionId, keys: ['C-d'] });
    await waitForState(h, sessionId, 'idle');
  });

  it('keeps the PTY as its controlling terminal: tty, C-c, full-screen programs and nested PTYs work', async () => {
    const h = await start();
    await writeFile(
      join(h.workspace, 'long.txt'),
      `${Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n')}\n`,
    );
    const sessionId = await sandboxedSession(h);
    expect(await run(h, sessionId, 'tty')).toMatchObject({ output: '/dev/console\n', exitCode: 0 });

    expect((await run(h, sessionId, 'sleep 30', 300)).completed).toBe(false);
    await h.data('terminal.write', { sessionId, keys: ['C-c'] });
    await waitForState(h, sessionId, 'idle');
    const interrupted = await h.data<{ lastExitCode: number }>('terminal.observe', {
      sessionId,
      mode: 'state',
    });
    expect(interrupted.lastExitCode).toBe(130);

    expect((await run(h, sessionId, 'less long.txt', 500)).completed).toBe(false);
    await waitForState(h, sessionId, 'waiting_for_input');
    const paged = await h.data<{ alternateScreen: boolean; lines: string[] }>('terminal.snapshot', {
      sessionId,
    });
    expect(paged.alternateScreen).toBe(true);
    expect(paged.lines[0]).toBe('line 0');
    await h.data('terminal.write', { sessionId, text: 'q' });
    await waitForState(h, sessionId, 'idle');

    expect(await run(h, sessionId, 'script -qec "tty" /dev/null')).toMatchObject({
      output: expect.stringMatching(/^\/dev\/pts\/\d+\r?\n$/),
      exitCode: 0,
    });
  });

  it('ends with the exit code of its shell', async () => {
    const h = await start();
    const sessionId = await sandboxedSession(h);
    const session = h.manager.get(sessionId);
    if (session === undefined) throw new Error('no session');
    const exited = await run(h, sessionId, 'exit 5');
    expect(exited).toMatchObject({ completed: true, exitCode: 5, state: 'exited' });
    expect(session.exit).toEqual({ exitCode: 5, signal: null });
    expect(await isAlive(session.pid)).toBe(false);
  });

  it('closing ends every process of the sandbox, background and setsid ones included', async () => {
    const h = await start();
    const sessionId = await sandboxedSession(h);
    const session = h.manager.get(sessionId);
    if (session === undefined) throw new Error('no session');
    await run(h, sessionId, 'sleep 300 & setsid sleep 301 & trap "" HUP; sleep 302 &');
    // bwrap, bwrap as the namespace's init, bash and the three sleeps (setsid forks on its way).
    let tree: number[] = [];
    for (let tries = 0; tries < 50; tries += 1) {
      tree = await processTree(session.pid);
      if ((await sleepsAmong(tree)) === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await sleepsAmong(tree)).toBe(3);
    const alive: number[] = [];
    for (const pid of tree) if (await isAlive(pid)) alive.push(pid);
    expect(alive.length).toBeGreaterThanOrEqual(6);
    await h.data('terminal.close', { sessionId });
    for (const pid of tree) expect(await isAlive(pid)).toBe(false);
  });
});

describe('choosing the sandbox', () => {
  it('refuses a sandboxed session when the configured bubblewrap is missing, and starts nothing', async () => {
    const h = await start({ manager: { sandboxExecutable: '/nonexistent/bwrap' } });
    const result = await h.call('terminal.create', { sandbox: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('UNSUPPORTED');
    expect(result.error.field).toBe('sandbox');
    expect(result.error.message).toBe(
      'sandbox: the terminal sandbox cannot start: bubblewrap was configured at /nonexistent/bwrap, but nothing executable is there',
    );
    expect(renderResult(result)).toContain('open the session with sandbox false');
    const ran = await h.call('terminal.run', { command: 'echo hi', sandbox: true });
    expect(!ran.ok && ran.error.code).toBe('UNSUPPORTED');
    expect(h.manager.list()).toEqual([]);
    expect(h.asked).toEqual([]);
  });

  it('refuses a sandboxed session when bubblewrap is there but cannot start a sandbox', async () => {
    // /bin/false stands for a bwrap that the kernel refuses namespaces: it exits non-zero.
    const h = await start({ manager: { sandboxExecutable: '/bin/false' } });
    const result = await h.call('terminal.create', { sandbox: true });
    expect(!result.ok && result.error.message).toBe(
      'sandbox: the terminal sandbox cannot start: bubblewrap is installed but cannot start a sandbox here (exit code 1); allow unprivileged user namespaces or run as a user that may create them',
    );
    expect(h.manager.list()).toEqual([]);
  });

  it('refuses a sandbox where it is off, and an unsandboxed session where it is required', async () => {
    const off = await start({ manager: { sandbox: 'off' } });
    const refused = await off.call('terminal.create', { sandbox: true });
    expect(!refused.ok && refused.error.code).toBe('UNSUPPORTED');
    expect(!refused.ok && refused.error.field).toBe('sandbox');
    const backends = await off.data<{ sandbox: { mode: string; available: boolean } }>(
      'terminal.backends',
      {},
    );
    expect(backends.sandbox).toMatchObject({ mode: 'off', available: false });
    await off.dispose();

    const required = await start({ manager: { sandbox: 'required' } });
    const unsandboxed = await required.call('terminal.create', { sandbox: false });
    expect(!unsandboxed.ok && unsandboxed.error.code).toBe('PERMISSION_DENIED');
    expect(!unsandboxed.ok && unsandboxed.error.field).toBe('sandbox');
    const proot = await required.call('terminal.create', { backend: 'proot' });
    expect(!proot.ok && proot.error.field).toBe('backend');
    const byDefault = await required.data<{ sandboxed: boolean }>('terminal.create', {});
    expect(byDefault.sandboxed).toBe(true);
    const ran = await required.data<RunData & { sessionClosed: boolean }>('terminal.run', {
      command: 'echo $$',
    });
    expect(ran).toMatchObject({ output: '2\n', exitCode: 0, sessionClosed: true });
    expect(required.asked).toEqual([]);
  });
});

describe('confirmation of input to an unsandboxed session', () => {
  /** A user who allows everything "for the session", except actions that contain `refuse`. */
  function user(refuse?: string) {
    return async (request: ConfirmationRequest): Promise<ConfirmationDecision> =>
      refuse !== undefined && request.action.includes(refuse) ? 'deny' : 'allow_session';
  }

  const asked = (h: Harness) => h.asked.map((request) => [request.toolId, request.action]);

  it('asks before every command line and keystroke, though the user allowed earlier ones for the session', async () => {
    const h = await start({ riskGate: true, confirm: user() });
    const created = await h.data<{ sessionId: string; content: string }>('terminal.create', {});
    const { sessionId } = created;
    expect(created.content).toContain('every command and keystroke sent to it asks the user');
    expect((await run(h, sessionId, 'echo one')).output).toBe('one\n');
    expect((await run(h, sessionId, 'echo one')).output).toBe('one\n');
    await h.data('terminal.write', { sessionId, text: 'echo two', keys: ['Enter'] });
    await h.data('terminal.write', { sessionId, keys: ['C-c'] });
    await h.data('terminal.create', {});
    expect(asked(h)).toEqual([
      // terminal.create goes through the risk gate: "allow for the session" is remembered.
      ['terminal.create', '(no arguments)'],
      ['terminal.run', 'echo one'],
      ['terminal.run', 'echo one'],
      ['terminal.write', '"echo two", then keys Enter'],
      ['terminal.write', 'keys C-c'],
    ]);
    expect(h.asked[1]).toMatchObject({ risk: 'HIGH' });
    expect(h.asked[1]?.reason).toContain(`terminal session ${sessionId} (bash)`);
  });

  it('sends nothing the user denies, and the session stays usable', async () => {
    const h = await start({ riskGate: true, confirm: user('denied') });
    const { sessionId } = await h.data<{ sessionId: string }>('terminal.create', {});
    const denied = await h.call('terminal.run', { sessionId, command: 'touch denied.txt' });
    expect(denied.ok).toBe(false);
    if (denied.ok) return;
    expect(denied.error).toMatchObject({ code: 'PERMISSION_DENIED', field: 'command' });
    expect(denied.error.message).toBe(
      `command: not sent to terminal session ${sessionId} (bash): the user did not allow it`,
    );
    expect(renderResult(denied)).toContain('terminal.create {"sandbox": true}');
    const typed = await h.call('terminal.write', {
      sessionId,
      text: 'touch denied-too.txt',
      keys: ['Enter'],
    });
    expect(!typed.ok && typed.error.field).toBe('text');
    expect((await run(h, sessionId, 'ls')).output).toBe('');
    expect(existsSync(join(h.workspace, 'denied.txt'))).toBe(false);
    expect(existsSync(join(h.workspace, 'denied-too.txt'))).toBe(false);
  });

  it('asks before starting a session for terminal.run without sessionId, and starts none when denied', async () => {
    const h = await start({ riskGate: true, confirm: user('denied') });
    const denied = await h.call('terminal.run', { command: 'echo denied' });
    expect(!denied.ok && denied.error.code).toBe('PERMISSION_DENIED');
    expect(h.manager.list()).toEqual([]);
    expect(asked(h)).toEqual([['terminal.run', 'echo denied']]);
    expect(h.asked[0]?.reason).toContain('a new terminal session');
  });

  it('does not ask for input to a sandboxed session; only its creation passes the risk gate', async () => {
    const h = await start({ riskGate: true, confirm: user() });
    const sessionId = await sandboxedSession(h);
    await run(h, sessionId, 'echo a');
    await run(h, sessionId, 'echo b');
    await h.data('terminal.write', { sessionId, text: 'echo c', keys: ['Enter'] });
    await h.data('terminal.run', { command: 'echo d', sandbox: true });
    expect(asked(h)).toEqual([['terminal.create', 'sandbox: true']]);
  });

  it('refuses input when nobody can answer', async () => {
    const h = await start({ confirm: null });
    const { sessionId } = await h.data<{ sessionId: string }>('terminal.create', {});
    const result = await h.call('terminal.run', { sessionId, command: 'echo hi' });
    expect(!result.ok && result.error.code).toBe('PERMISSION_DENIED');
    const sandboxed = await h.data<RunData>('terminal.run', { command: 'echo hi', sandbox: true });
    expect(sandboxed.output).toBe('hi\n');
  });
});
