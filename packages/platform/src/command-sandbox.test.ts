import { spawnSync } from 'node:child_process';
import {
  chmod,
  mkdir,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir, removeTempDir, writeFiles } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSandboxArguments } from './command-sandbox.js';
import { prepareGitWrapper, writeGitWrapper } from './sandbox-git-wrapper.js';
import { SANDBOX_LAUNCHER_ARGUMENTS } from './sandbox-limits.js';
import { probeCommandSandbox } from './sandbox-probe.js';

let base: string;

beforeEach(async () => {
  base = await realpath(await createTempDir('toolsys-sandbox-'));
  await writeFiles(base, { 'ws/inside.txt': 'inside\n', 'outside.txt': 'outside\n' });
});

afterEach(async () => {
  await removeTempDir(base);
});

/** Runs a shell line in the real bubblewrap sandbox of the workspace `ws`. */
async function inSandbox(line: string): Promise<{ status: number | null; stdout: string }> {
  const status = await probeCommandSandbox();
  if (!status.available || status.executable === undefined) throw new Error(status.reason);
  const workspace = join(base, 'ws');
  const args = await buildSandboxArguments({
    workspaceRoot: workspace,
    cwd: workspace,
    executable: status.executable,
    gitWrapper: await prepareGitWrapper(),
  });
  const result = spawnSync(status.executable, [...args, '/bin/bash', '-c', line], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stdout: `${result.stdout}${result.stderr}` };
}

describe('probeCommandSandbox', () => {
  it('finds bubblewrap here and says what it gives', async () => {
    const status = await probeCommandSandbox();
    expect(status).toMatchObject({ available: true });
    expect(status.reason).toMatch(/without network/);
  });

  it('says why when the configured executable is missing', async () => {
    const missing = join(base, 'no-bwrap');
    expect(await probeCommandSandbox({ executable: missing })).toEqual({
      available: false,
      reason: `bubblewrap was configured at ${missing}, but nothing executable is there`,
    });
  });

  it('says why when the executable cannot start a sandbox', async () => {
    const fake = join(base, 'fake-bwrap');
    await writeFile(fake, '#!/bin/sh\necho "setting up uid map: Permission denied" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const status = await probeCommandSandbox({ executable: fake });
    expect(status.available).toBe(false);
    expect(status.reason).toBe(
      'bubblewrap is installed but cannot start a sandbox here (setting up uid map: Permission denied); allow unprivileged user namespaces or run as a user that may create them',
    );
  });
});

describe('the sandbox', () => {
  it('reads the workspace but cannot write it', async () => {
    const result = await inSandbox('cat inside.txt; touch new.txt && echo wrote');
    expect(result.stdout).toContain('inside');
    expect(result.stdout).not.toContain('wrote');
    expect(result.stdout).toMatch(/Read-only file system/);
  });

  it('shows nothing beside the workspace outside the system folders', async () => {
    const result = await inSandbox(
      `cat ${join(base, 'outside.txt')}; ls /etc/shadow /root /home 2>&1`,
    );
    const etc = await inSandbox('ls /etc | wc -l');
    expect(result.stdout).not.toContain('outside\n');
    expect(result.stdout).toMatch(/outside\.txt: No such file or directory/);
    expect(result.stdout).toMatch(/\/etc\/shadow': No such file or directory/);
    expect(Number(etc.stdout.trim())).toBeLessThan(25);
  });

  it('has its own PID namespace, a fresh /proc and a writable tmpfs /tmp', async () => {
    const result = await inSandbox(
      'echo pid=$$; ls /proc | grep -c "^[0-9]"; echo x > /tmp/t && cat /tmp/t',
    );
    expect(result.stdout).toMatch(/^pid=\d\n/);
    expect(result.stdout).toContain('\nx\n');
  });

  it('has no network interface but loopback, and loopback is down', async () => {
    const result = await inSandbox('cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
    expect(result.stdout.trim()).toBe('lo');
  });

  it('ends with the limit launcher, SANDBOX_LAUNCHER_ARGUMENTS long', async () => {
    const args = await buildSandboxArguments({
      workspaceRoot: base,
      cwd: base,
      executable: 'bwrap',
    });
    expect(args.slice(-SANDBOX_LAUNCHER_ARGUMENTS, -SANDBOX_LAUNCHER_ARGUMENTS + 4)).toEqual([
      '/bin/bash',
      '--norc',
      '--noprofile',
      '-c',
    ]);
    expect(args.at(-1)).toBe('toolsys-sandbox');
  });

  it('detaches from the controlling terminal unless told the terminal is its own', async () => {
    const options = { workspaceRoot: base, cwd: base, executable: 'bwrap' };
    expect(await buildSandboxArguments(options)).toContain('--new-session');
    expect(await buildSandboxArguments({ ...options, newSession: false })).not.toContain(
      '--new-session',
    );
  });

  it('drops every capability', async () => {
    const result = await inSandbox('grep CapEff /proc/self/status');
    expect(result.stdout).toMatch(/CapEff:\s+0+\n/);
  });
});

describe('writeGitWrapper', () => {
  const uid = process.getuid?.() as number;

  it('keeps one wrapper per user and version, shared by every call, so a killed process leaks nothing', async () => {
    const first = await writeGitWrapper(base);
    expect(first).toMatch(new RegExp(`/toolsys-sandbox-${uid}-[0-9a-f]{12}/git$`));
    expect(await writeGitWrapper(base)).toBe(first);
    const folder = join(first, '..');
    expect(await readdir(folder)).toEqual(['git']);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await stat(first)).mode & 0o777).toBe(0o555);
    expect(await readFile(first, 'utf8')).toMatch(/^#!\/bin\/sh/);
  });

  it('replaces a wrapper whose content is not ours', async () => {
    const file = await writeGitWrapper(base);
    const good = await readFile(file, 'utf8');
    await rm(file, { force: true });
    await writeFile(file, '#!/bin/sh\necho tampered\n', { mode: 0o755 });
    expect(await writeGitWrapper(base)).toBe(file);
    expect(await readFile(file, 'utf8')).toBe(good);
    expect(await readdir(join(file, '..'))).toEqual(['git']);
  });

  it('does not use a shared folder that others can write to, or a link', async () => {
    const shared = await writeGitWrapper(base);
    const folder = join(shared, '..');
    await chmod(folder, 0o777);
    const instead = await writeGitWrapper(base);
    expect(join(instead, '..')).not.toBe(folder);
    expect(await readFile(instead, 'utf8')).toBe(await readFile(shared, 'utf8'));

    await rm(folder, { recursive: true, force: true });
    await mkdir(join(base, 'elsewhere'));
    await symlink(join(base, 'elsewhere'), folder);
    const again = await writeGitWrapper(base);
    expect(join(again, '..')).not.toBe(folder);
    expect(await readdir(join(base, 'elsewhere'))).toEqual([]);
  });
});
