import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canRunBusyboxRootfs, makeBusyboxRootfs } from './support/busybox-rootfs.js';
import { createHarness, type Harness } from './support/harness.js';

// A real proot over a tiny rootfs made here from the static busybox binary; nothing is mocked.
const hasProot = canRunBusyboxRootfs;

let harness: Harness;

beforeEach(async () => {
  harness = await createHarness();
});

afterEach(async () => {
  await harness.dispose();
});

describe.skipIf(!hasProot)('proot backend on a busybox rootfs', () => {
  it('is absent until built, and a proot session is refused with the next step', async () => {
    const status = await harness.data<{ state: string }>('terminal.linux_status', {});
    expect(status.state).toBe('absent');
    expect(status.content).toContain('terminal.linux_bootstrap');
    const refused = await harness.call('terminal.create', { backend: 'proot' });
    expect(!refused.ok && [refused.error.code, refused.error.field]).toEqual([
      'UNSUPPORTED',
      'backend',
    ]);
    if (!refused.ok) expect(refused.error.message).toContain('not ready (absent)');
    await makeBusyboxRootfs(harness.rootfs.directory('debian'));
    const unfinished = await harness.call('terminal.create', { backend: 'proot' });
    expect(!unfinished.ok && unfinished.error.code).toBe('UNSUPPORTED');
    const packages = await harness.call('terminal.linux_packages', { action: 'list' });
    expect(!packages.ok && packages.error.code).toBe('UNSUPPORTED');
    if (!packages.ok) expect(packages.error.message).toContain('not ready (absent)');
  });

  it('starts only a shell listed in the rootfs /etc/shells when a shell is named', async () => {
    const directory = harness.rootfs.directory('debian');
    await makeBusyboxRootfs(directory);
    await harness.rootfs.markReady('debian');
    const unlisted = await harness.call('terminal.create', { backend: 'proot', shell: 'sh' });
    expect(!unlisted.ok && [unlisted.error.code, unlisted.error.field]).toEqual([
      'INVALID_ARGUMENT',
      'shell',
    ]);
    if (!unlisted.ok) expect(unlisted.error.message).toContain("rootfs's /etc/shells");
    await writeFile(join(directory, 'etc', 'shells'), '/bin/sh\n');
    const program = await harness.call('terminal.create', { backend: 'proot', shell: 'cat' });
    expect(!program.ok && [program.error.code, program.error.field]).toEqual([
      'INVALID_ARGUMENT',
      'shell',
    ]);
    expect(harness.manager.list()).toEqual([]);
    const listed = await harness.data<{ shell: string; state: string }>('terminal.create', {
      backend: 'proot',
      shell: 'sh',
    });
    expect(listed).toMatchObject({ shell: 'sh', state: 'idle' });
  });

  it('runs cat /etc/os-release inside the rootfs, with the workspace at /workspace', async () => {
    const directory = harness.rootfs.directory('debian');
    await makeBusyboxRootfs(directory);
    await harness.rootfs.markReady('debian');
    await writeFile(join(harness.workspace, 'hello.txt'), 'from the workspace\n');
    const status = await harness.data<{ state: string; osName: string }>(
      'terminal.linux_status',
      {},
    );
    expect(status).toMatchObject({ state: 'ready', osName: 'Toolsys Test Linux 1' });
    const backends = await harness.data<{ proot: { available: boolean } }>('terminal.backends', {});
    expect(backends.proot.available).toBe(true);
    const created = await harness.data<{ sessionId: string; shell: string; backend: string }>(
      'terminal.create',
      { backend: 'proot' },
    );
    expect(created).toMatchObject({ shell: 'sh', backend: 'proot' });
    const { sessionId } = created;
    const osRelease = await harness.data<{ output: string; completed: boolean }>('terminal.run', {
      sessionId,
      command: 'cat /etc/os-release',
    });
    expect(osRelease.completed).toBe(true);
    expect(osRelease.output).toContain('PRETTY_NAME="Toolsys Test Linux 1"');
    const inside = await harness.data<{ output: string }>('terminal.run', {
      sessionId,
      command: 'pwd; cat hello.txt',
    });
    expect(inside.output).toContain('/workspace\nfrom the workspace');
    await harness.data('terminal.write', { sessionId, text: 'sleep 100', keys: ['Enter'] });
    const running = await harness.data<{ matched: boolean }>('terminal.wait', {
      sessionId,
      for: 'state',
      state: 'running',
      timeoutMs: 10_000,
    });
    expect(running.matched).toBe(true);
    const pid = harness.manager.get(sessionId)?.pid ?? 0;
    await harness.data('terminal.close', { sessionId });
    expect(await isAlive(pid)).toBe(false);
  });

  it('says plainly when the rootfs has no dpkg, and rejects bad package names', async () => {
    await makeBusyboxRootfs(harness.rootfs.directory('debian'));
    await harness.rootfs.markReady('debian');
    const list = await harness.call('terminal.linux_packages', { action: 'list' });
    expect(!list.ok && list.error.code).toBe('EXECUTION_FAILED');
    if (!list.ok) expect(list.error.message).toContain('dpkg-query failed');
    const bad = await harness.call('terminal.linux_packages', {
      action: 'install',
      packages: ['curl', 'rm -rf /'],
    });
    expect(!bad.ok && [bad.error.code, bad.error.field]).toEqual([
      'INVALID_ARGUMENT',
      'packages.1',
    ]);
    const none = await harness.call('terminal.linux_packages', { action: 'remove', packages: [] });
    expect(!none.ok && none.error.field).toBe('packages');
  });
});

describe('Ubuntu tools', () => {
  it('say that no Ubuntu mirror is configured and what to set, instead of pretending', async () => {
    for (const id of ['terminal.ubuntu_install', 'terminal.ubuntu.ensure']) {
      const result = await harness.call(id, {});
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe('UNSUPPORTED');
        expect(result.error.message).toContain('no Ubuntu mirror is configured');
        expect(result.error.hint).toContain('ubuntuMirror');
      }
    }
    const status = await harness.data<{ state: string; mirror: null; suite: string }>(
      'terminal.ubuntu.status',
      {},
    );
    expect(status).toMatchObject({ state: 'absent', mirror: null, suite: 'jammy' });
    expect(status.content).toContain('no Ubuntu mirror is configured');
  });

  it.skipIf(existsSync('/usr/share/keyrings/ubuntu-archive-keyring.gpg'))(
    'with a mirror but no Ubuntu keyring, says which package to install',
    async () => {
      await harness.dispose();
      harness = await createHarness({
        rootfs: { ubuntu: { suite: 'jammy', mirror: 'http://127.0.0.1:9/ubuntu' } },
      });
      const result = await harness.call('terminal.ubuntu.ensure', {});
      expect(!result.ok && result.error.code).toBe('UNSUPPORTED');
      if (!result.ok) expect(result.error.hint).toContain('ubuntu-keyring');
    },
  );

  it.skipIf(!existsSync('/usr/sbin/debootstrap'))(
    'refuses a suite this debootstrap does not know',
    async () => {
      await harness.dispose();
      harness = await createHarness({
        rootfs: { debian: { suite: 'no-such-suite', mirror: 'http://127.0.0.1:9/debian' } },
      });
      const result = await harness.call('terminal.linux_bootstrap', {});
      expect(!result.ok && result.error.code).toBe('UNSUPPORTED');
      if (!result.ok) {
        expect(result.error.message).toContain('does not know the suite "no-such-suite"');
      }
    },
  );
});
