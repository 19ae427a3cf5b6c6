import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ConfirmationRequest,
  type PipelineToolExecutor,
  renderResult,
  type ToolResult,
} from '@toolsys/core-tool-registry';
import { createShellTools, type ShellToolsOptions } from '@toolsys/core-tools';
import { probeCommandSandbox } from '@toolsys/platform';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gatedExecutor } from './support/executor.js';

/*
 * Attacks on shell_execute: commands that once ran without asking and reached outside the
 * workspace. Every command here is answered "deny" when it asks; the test then checks that it
 * either asked, or ran inside the sandbox without reading or changing anything outside.
 */

const SECRET = 'outside-secret-7f3a';
const FAKE_KEY = 'FAKE_API_KEY';
const FAKE_VALUE = 'fakekey0a1b2c3d4e5f';

let base: string;
let root: string;
let outside: string;
let asked: ConfirmationRequest[];
let answer: 'deny' | 'allow_once';
const startedPids: number[] = [];

function executor(options: Partial<ShellToolsOptions> = {}): PipelineToolExecutor {
  const environment = { ...process.env, [FAKE_KEY]: FAKE_VALUE };
  const tools = createShellTools({ workspaceRoot: root, environment, ...options });
  return gatedExecutor({
    tools,
    answer: (request) => {
      asked.push(request);
      return answer;
    },
  }).executor;
}

function run(command: string, options: Partial<ShellToolsOptions> = {}): Promise<ToolResult> {
  return executor(options).execute('shell_execute', { command, timeoutMs: 20_000 });
}

/** The structured data of a shell_execute result. */
function shellData(result: ToolResult): { stdout: string; exitCode: number | null } {
  const data = result.ok ? (result.data as { stdout?: string; exitCode?: number | null }) : {};
  return { stdout: data?.stdout ?? '', exitCode: data?.exitCode ?? null };
}

/** Everything under a folder, as relative paths. */
async function listTree(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true });
  return entries.map(String).sort();
}

/** The command asked and was not run, or it ran in the sandbox and leaked nothing. */
function expectContained(result: ToolResult, command: string): void {
  const text = renderResult(result);
  expect(text, command).not.toContain(SECRET);
  expect(text, command).not.toContain(FAKE_VALUE);
  expect(text, command).not.toMatch(/root:[^:\n]*:0:0:/);
  if (asked.length === 0) {
    expect(result.ok, text).toBe(true);
    if (result.ok) expect(result.data).toMatchObject({ permission: 'allow', sandboxed: true });
  } else {
    expect(result.ok, text).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('PERMISSION_DENIED');
  }
}

beforeAll(async () => {
  const status = await probeCommandSandbox();
  if (!status.available) throw new Error(`the sandbox must be available here: ${status.reason}`);
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'toolsys-adv-shell-')));
  root = join(base, 'workspace');
  outside = join(base, 'outside');
  await mkdir(join(root, 'sub', 'deeper'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'secret.txt'), `${SECRET}\n`);
  await writeFile(join(root, 'notes.txt'), 'inside\n');
  await symlink(outside, join(root, 'link'));
  await symlink('/etc', join(root, 'etclink'));
  await symlink('/proc', join(root, 'proclink'));
  await symlink(join(outside, 'secret.txt'), join(root, 'sub', 'deeper', 'filelink'));
  await symlink('../../../outside', join(root, 'sub', 'deeper', 'relative-link'));
  await symlink(join(outside, 'later'), join(root, 'dangling'));
  asked = [];
  answer = 'deny';
});

afterEach(async () => {
  for (const pid of startedPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await rm(base, { recursive: true, force: true });
});

describe('brace expansion anywhere in a word', () => {
  it.each([
    'cat {/etc/passw,}d',
    'cat /etc/{passwd,}',
    'cat {/etc,/nonexistent}/passwd',
    'cat /e{t,}c/passwd',
    'cat {,/etc/}passwd',
    'head -c 200 /etc/pass{wd,}',
    'cat /etc/pass{w..w}d',
    'cat {{/etc/passw,},x}d',
    'cat x{,/../../../../../etc/passwd}',
    'cat {notes.txt,link/secret.txt}',
    'wc -c < {/etc/passwd,}',
  ])('%s does not print an outside file unasked', async (command) => {
    const result = await run(command);
    expect(asked.length, command).toBe(1);
    expectContained(result, command);
  });

  it('still runs a brace list that stays inside without asking', async () => {
    const result = await run('cat {notes,notes}.txt');
    expect(asked).toEqual([]);
    expect(result.ok && result.content).toContain('inside\ninside');
  });
});

describe('/proc and the host environment', () => {
  it.each([
    `grep -a -o -h ${FAKE_KEY}=[a-z0-9]* {/proc/[0-9]*/enviro,}n`,
    `grep -a -o -h ${FAKE_KEY}=[a-z0-9]* /proc/*/environ`,
    'cat /proc/self/environ',
    `cat /proc/${process.pid}/environ`,
    'cat proclink/self/environ',
    `grep -a ${FAKE_KEY} proclink/1/environ`,
    'printenv',
    `printenv ${FAKE_KEY}`,
    'env',
  ])('%s does not reveal the scrubbed secret', async (command) => {
    const result = await run(command);
    expectContained(result, command);
  });

  it('a sandboxed command sees only its own fresh /proc', async () => {
    // `cat` on the deployment's allow-list skips the path checks: only the sandbox stands here.
    const result = await run(`cat /proc/1/cmdline; ls /proc | grep -c '^[0-9]'`, {
      allowCommands: ['cat', 'ls', 'grep'],
    });
    expect(asked).toEqual([]);
    expect(result.ok, renderResult(result)).toBe(true);
    const processes = Number(/(\d+)\s*$/.exec(result.ok ? shellData(result).stdout : '')?.[1]);
    expect(processes).toBeLessThan(10);
    expectContained(result, 'cat /proc/1/cmdline');
  });

  it('a sandboxed command cannot read the environment of other processes', async () => {
    const result = await run(`cat /proc/${process.pid}/environ /proc/self/environ`, {
      allowCommands: ['cat'],
    });
    expect(asked).toEqual([]);
    expectContained(result, 'cat environ');
  });
});

describe('options of allow-listed commands that run programs or write files', () => {
  it.each([
    "printf 'touch PWNED\\n%.0s' {1..50000} | sort -S 1k --compress-program=sh",
    "printf 'touch PWNED\\n%.0s' {1..5} | sort -S 1k --compress-prog=sh",
    "printf 'touch PWNED\\n' | sort --compress=sh",
    'sort -o PWNED notes.txt',
    'sort -oPWNED notes.txt',
    'sort --out=PWNED notes.txt',
    'sort -T . notes.txt',
    'find . -exec touch PWNED \\;',
    'find . -execdir touch PWNED \\;',
    'find . -ok touch PWNED \\;',
    'find . -fprint PWNED',
    'find . -fls PWNED',
    'rg --pre sh x',
    'rg --pre=./PWNED x',
    'rg --pre-glob "*" --pre sh x',
    'rg -z x',
    'rg --hostname-bin=sh x',
    'hostname --file=notes.txt',
    'hostname -F notes.txt',
    'hostname --fil=notes.txt',
    'hostname PWNED',
    'tree -o PWNED',
    'uniq notes.txt PWNED',
    'git diff --ext-diff',
    'git diff --output=PWNED',
    'git log --out=PWNED',
    'git show --textconv HEAD',
    'git -c core.pager=sh log',
    'git --exec-path=. status',
    './cat notes.txt',
    'sub/ls',
  ])('%s asks first', async (command) => {
    const result = await run(command);
    expect(asked.length, command).toBe(1);
    expectContained(result, command);
    expect(existsSync(join(root, 'PWNED'))).toBe(false);
  });
});

describe('symbolic links leading out of the workspace', () => {
  it.each([
    'cat link/secret.txt',
    'head etclink/shadow',
    'head etclink/passwd',
    'cat sub/deeper/filelink',
    'cat sub/deeper/relative-link/secret.txt',
    'grep -r outside link/',
    'cat l*/secret.txt',
    'cat */secret.txt',
    'cat sub/deeper/*',
    'tail dangling/secret.txt',
    'wc -l < link/secret.txt',
    `cat ${'sub/deeper/relative-link/'}secret.txt`,
    'cat {link,x}/secret.txt',
  ])('%s does not read the outside file unasked', async (command) => {
    const result = await run(command);
    expect(asked.length, command).toBe(1);
    expectContained(result, command);
  });

  it('inside the sandbox, links to outside folders lead nowhere', async () => {
    const result = await run(
      'cat link/secret.txt; head etclink/shadow; cat sub/deeper/filelink; ls etclink/',
      { allowCommands: ['cat', 'head', 'ls'] },
    );
    expect(asked).toEqual([]);
    expectContained(result, 'cat through links');
    expect(result.ok && shellData(result).stdout).not.toMatch(/shadow|ssh/);
  });
});

describe('the sandbox itself', () => {
  it('keeps the workspace read-only for an auto-allowed command', async () => {
    const result = await run('touch PWNED', { allowCommands: ['touch'] });
    expect(asked).toEqual([]);
    expect(result.ok && shellData(result).exitCode).not.toBe(0);
    expect(existsSync(join(root, 'PWNED'))).toBe(false);
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        hits += 1;
        response.end('reached');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('has no network, not even loopback', async () => {
      const result = await run(`curl -s -m 5 http://127.0.0.1:${port}/`, {
        allowCommands: ['curl'],
      });
      expect(asked).toEqual([]);
      expect(result.ok && shellData(result).stdout).not.toContain('reached');
      expect(hits).toBe(0);
    });
  });

  it('without a sandbox nothing runs unasked', async () => {
    for (const options of [
      { sandboxExecutable: join(base, 'no-such-bwrap') },
      { sandbox: 'off' as const },
    ]) {
      asked = [];
      const result = await run('ls', options);
      expect(asked.length).toBe(1);
      expect(asked[0]?.reason).toMatch(/no OS sandbox is available/);
      expect(result.ok).toBe(false);
    }
  });

  it('a sandboxed command with a child that calls setsid does not outlive the call', async () => {
    // The pid inside the sandbox's namespace is meaningless outside: search the host for the sleep.
    const marker = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    // setsid itself is a wrapper that always asks: a program on the allow-list detaches instead.
    const result = await run(
      `python3 -c "import subprocess; subprocess.Popen(['sleep', '${marker}'], start_new_session=True)"`,
      { allowCommands: ['python3'] },
    );
    expect(asked).toEqual([]);
    expect(result.ok, renderResult(result)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const alive = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(`sleep ${marker}`));
    for (const line of alive) startedPids.push(Number(line.trim().split(/\s+/)[0]));
    expect(alive).toEqual([]);
  });
});

describe('an approved command', () => {
  it('has its setsid children ended at the timeout', async () => {
    answer = 'allow_once';
    const pidFile = join(base, 'escaped.pid');
    const result = await executor().execute('shell_execute', {
      command: `setsid bash -c 'echo $$ > ${pidFile}; exec sleep 300' & sleep 300`,
      timeoutMs: 2_000,
    });
    expect(asked.length).toBe(1);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('TIMEOUT');
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(pid).toBeGreaterThan(0);
    startedPids.push(pid);
    let alive = true;
    for (let attempt = 0; attempt < 50 && alive; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      alive = isAlive(pid);
    }
    expect(alive).toBe(false);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const status = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
    return !status.trim().startsWith('Z');
  } catch {
    return false;
  }
}

describe('git with a repository configured to run programs', () => {
  beforeEach(async () => {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: root,
        stdio: 'ignore',
        env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
      });
    git('init', '-q');
    await writeFile(join(root, 'tracked.txt'), 'one\n');
    await writeFile(join(root, '.gitattributes'), 'tracked.txt filter=evil diff=evil\n');
    git('add', 'tracked.txt', '.gitattributes');
    git('-c', 'user.email=a@b.c', '-c', 'user.name=a', 'commit', '-q', '-m', 'one');
    const script = join(outside, 'payload.sh');
    await writeFile(
      script,
      `#!/bin/sh\ntouch ${join(outside, 'PWNED')}\ntouch ${join(root, 'PWNED')}\ncat\n`,
    );
    await chmod(script, 0o755);
    // What one approved write of .git/config can do.
    const settings: [string, string][] = [
      ['core.fsmonitor', script],
      ['diff.external', script],
      ['core.pager', script],
      ['filter.evil.clean', script],
      ['filter.evil.smudge', script],
      ['diff.evil.textconv', script],
      ['diff.evil.command', script],
      ['log.showSignature', 'true'],
      ['gpg.program', script],
      ['core.hooksPath', outside],
    ];
    for (const [key, value] of settings) git('config', key, value);
    await writeFile(join(root, 'tracked.txt'), 'two\n');
  });

  it.each([
    'git status',
    'git diff',
    'git diff HEAD',
    'git log -p',
    'git show',
    'git show HEAD:tracked.txt',
    'git blame tracked.txt',
    'git ls-files',
    'git describe --always',
  ])('%s runs none of them', async (command) => {
    const result = await run(command);
    expect(asked).toEqual([]);
    expect(result.ok, renderResult(result)).toBe(true);
    expect(existsSync(join(outside, 'PWNED')), command).toBe(false);
    expect(existsSync(join(root, 'PWNED')), command).toBe(false);
    expect(await listTree(outside)).toEqual(['payload.sh', 'secret.txt']);
  });
});
