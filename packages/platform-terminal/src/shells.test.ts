import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveShell } from './shells.js';

// The real shells of this machine, listed in shells files written for each case.
describe('resolveShell', () => {
  let dir: string;
  const env = { PATH: '/usr/bin:/bin' };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'terminal-shells-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a multiplexer the shells file lists, and does not offer it', async () => {
    const shellsFile = join(dir, 'shells');
    await writeFile(
      shellsFile,
      '# /etc/shells\n/bin/sh\n/usr/bin/bash\n/usr/bin/tmux\n/usr/bin/screen\n',
    );
    const tmux = await resolveShell('/usr/bin/tmux', env, { shellsFile });
    expect(tmux).toMatchObject({ ok: false, available: ['bash', 'sh'] });
    expect(await resolveShell('bash', env, { shellsFile })).toMatchObject({
      ok: true,
      name: 'bash',
    });
  });

  it('falls back to the shells in /usr/bin and /bin when the system has no shells file', async () => {
    const shellsFile = join(dir, 'missing');
    const bash = await resolveShell('bash', env, { shellsFile });
    expect(bash).toMatchObject({ ok: true, name: 'bash' });
    const env2 = await resolveShell('/usr/bin/env', env, { shellsFile });
    expect(env2.ok).toBe(false);
    if (!env2.ok) expect(env2.available).toEqual(expect.arrayContaining(['bash', 'sh']));
  });

  it('offers nothing when the shells file exists but cannot be read as a list', async () => {
    const shellsFile = join(dir, 'empty');
    await writeFile(shellsFile, '');
    expect(await resolveShell('bash', env, { shellsFile })).toMatchObject({
      ok: false,
      available: [],
    });
  });
});
