import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderResult, type ToolResult } from '@toolsys/core-tool-registry';
import { afterEach, describe, expect, it } from 'vitest';
import { listProcesses } from '../src/process-state.js';
import { createHarness, type Harness } from './support/harness.js';

// Real shells (bash, sh, zsh) on a real PTY, checked against this machine's /etc/shells; the
// sandboxed case runs the real bubblewrap. Nothing is mocked.
let harness: Harness | undefined;
const folders: string[] = [];

afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

/** A temporary folder outside the workspace, removed after the test. */
async function scratchFolder(): Promise<string> {
  const folder = await realpath(await mkdtemp(join(tmpdir(), 'terminal-shell-')));
  folders.push(folder);
  return folder;
}

async function start(options: Parameters<typeof createHarness>[0] = {}): Promise<Harness> {
  harness = await createHarness(options);
  return harness;
}

/** Every process below this test process (its PTY children and theirs). */
async function descendantPids(): Promise<number[]> {
  const processes = await listProcesses();
  const found = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const stat of processes) {
      if (found.has(stat.parentPid) && !found.has(stat.pid) && stat.state !== 'Z') {
        found.add(stat.pid);
        grew = true;
      }
    }
  }
  found.delete(process.pid);
  return [...found].sort();
}

/** Asserts the refusal the model reads: INVALID_ARGUMENT on `shell`, with the way out. */
function expectShellRefused(result: ToolResult, shell: string): void {
  expect(result.ok, renderResult(result)).toBe(false);
  if (result.ok) return;
  expect([result.error.code, result.error.field]).toEqual(['INVALID_ARGUMENT', 'shell']);
  expect(result.error.message).toContain(`"${shell}"`);
  expect(result.error.message).toMatch(/Shells available: .*\bbash\b/);
  expect(result.error.message).toMatch(/\bsh\b.*\bzsh\b/);
  expect(result.error.hint).toContain('terminal.run');
  expect(result.error.details).toMatchObject({ available: expect.arrayContaining(['bash', 'sh']) });
}

/** A workspace script that, if it ever ran, would leave a file and a sleeping process behind. */
async function writeProgram(folder: string, name: string): Promise<{ path: string; ran: string }> {
  const path = join(folder, name);
  const ran = join(folder, `${name}.ran`);
  await writeFile(path, `#!/bin/sh\ntouch '${ran}'\nexec sleep 300\n`);
  await chmod(path, 0o755);
  return { path, ran };
}

describe('the shell of an unsandboxed session', () => {
  it.each(['/usr/bin/env', '/bin/cat', 'env'])(
    'refuses %s, which is no login shell, and starts nothing',
    async (shell) => {
      const h = await start();
      const before = await descendantPids();
      const result = await h.call('terminal.create', { shell });
      expectShellRefused(result, shell);
      expect(h.manager.list()).toEqual([]);
      expect(await descendantPids()).toEqual(before);
      expect(h.asked).toEqual([]);
    },
  );

  it('refuses a program of the workspace, given by its absolute path, without running it', async () => {
    const h = await start();
    const program = await writeProgram(h.workspace, 'tool.sh');
    const before = await descendantPids();
    const result = await h.call('terminal.create', { shell: program.path });
    expectShellRefused(result, program.path);
    expect(h.manager.list()).toEqual([]);
    expect(await descendantPids()).toEqual(before);
    expect(existsSync(program.ran)).toBe(false);
  });

  it('refuses a workspace link named bash that points to another program', async () => {
    const h = await start();
    await mkdir(join(h.workspace, 'bin'));
    const link = join(h.workspace, 'bin', 'bash');
    await symlink('/usr/bin/env', link);
    const before = await descendantPids();
    const result = await h.call('terminal.create', { shell: link });
    expectShellRefused(result, link);
    expect(h.manager.list()).toEqual([]);
    expect(await descendantPids()).toEqual(before);
  });

  it('refuses a script named bash that comes first on PATH, without running it', async () => {
    const folder = await scratchFolder();
    const program = await writeProgram(folder, 'bash');
    const h = await start({
      manager: { environment: { ...process.env, PATH: `${folder}:${process.env.PATH ?? ''}` } },
    });
    const before = await descendantPids();
    const result = await h.call('terminal.create', { shell: 'bash' });
    expectShellRefused(result, 'bash');
    expect(await descendantPids()).toEqual(before);
    expect(existsSync(program.ran)).toBe(false);
  });

  it.each([
    ['/bin/bash', 'bash'],
    ['bash', 'bash'],
    ['sh', 'sh'],
    ['zsh', 'zsh'],
  ])('starts %s and runs commands in it', async (shell, name) => {
    const h = await start();
    const created = await h.data<{ sessionId: string; shell: string; state: string }>(
      'terminal.create',
      { shell },
    );
    expect(created).toMatchObject({ shell: name, state: 'idle' });
    const run = await h.data<{ output: string; exitCode: number | null }>('terminal.run', {
      sessionId: created.sessionId,
      command: 'echo "in $0"',
    });
    expect(run.output).toMatch(new RegExp(`^in \\S*${name}\n`));
    expect(h.asked.map((request) => request.action)).toEqual(['echo "in $0"']);
  });

  it('starts the listed shell, not the link, when a workspace link points to bash', async () => {
    const h = await start();
    const link = join(h.workspace, 'my-shell');
    await symlink('/bin/bash', link);
    const created = await h.data<{ sessionId: string; shell: string }>('terminal.create', {
      shell: link,
    });
    expect(created.shell).toBe('bash');
  });

  it('refuses a relative path, naming the field', async () => {
    const h = await start();
    const result = await h.call('terminal.create', { shell: './bash' });
    expectShellRefused(result, './bash');
  });
});

describe('code that would run as an unsandboxed shell starts', () => {
  it('refuses arguments and environment for the shell, and runs none of them', async () => {
    const h = await start();
    const program = await writeProgram(h.workspace, 'payload.sh');
    const before = await descendantPids();
    for (const extra of [
      { args: ['-c', program.path] },
      { args: ['--rcfile', program.path] },
      { env: { BASH_ENV: program.path, ENV: program.path, LD_PRELOAD: program.path } },
    ]) {
      const result = await h.call('terminal.create', { shell: 'bash', ...extra });
      const field = Object.keys(extra)[0];
      expect(result.ok, renderResult(result)).toBe(false);
      if (result.ok) continue;
      expect([result.error.code, result.error.field]).toEqual(['INVALID_ARGUMENT', field]);
      expect(result.error.hint).toContain('terminal.run');
    }
    expect(h.manager.list()).toEqual([]);
    expect(await descendantPids()).toEqual(before);
    expect(existsSync(program.ran)).toBe(false);
  });

  it.each(['sh', 'bash'])(
    'does not run the ENV or BASH_ENV file of the deployment environment in %s',
    async (shell) => {
      const program = await writeProgram(await scratchFolder(), 'startup.sh');
      const h = await start({
        manager: {
          environment: {
            ...process.env,
            ENV: program.path,
            BASH_ENV: program.path,
            PROMPT_COMMAND: `touch '${program.ran}'`,
          },
        },
      });
      const created = await h.data<{ sessionId: string; state: string }>('terminal.create', {
        shell,
      });
      expect(created.state).toBe('idle');
      const run = await h.data<{ output: string }>('terminal.run', {
        sessionId: created.sessionId,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion.
        command: 'echo "env=${ENV-unset} bash_env=${BASH_ENV-unset}"',
      });
      expect(run.output).toContain('env=unset bash_env=unset');
      expect(existsSync(program.ran)).toBe(false);
    },
  );
});

describe('the shell of a sandboxed session', () => {
  it('refuses a program that is no login shell, even inside the sandbox', async () => {
    const h = await start();
    const before = await descendantPids();
    const result = await h.call('terminal.create', { shell: '/usr/bin/env', sandbox: true });
    expectShellRefused(result, '/usr/bin/env');
    expect(h.manager.list()).toEqual([]);
    expect(await descendantPids()).toEqual(before);
  });

  it('starts sh inside the sandbox', async () => {
    const h = await start();
    const created = await h.data<{ shell: string; sandboxed: boolean; state: string }>(
      'terminal.create',
      { shell: 'sh', sandbox: true },
    );
    expect(created).toMatchObject({ shell: 'sh', sandboxed: true, state: 'idle' });
  });
});
