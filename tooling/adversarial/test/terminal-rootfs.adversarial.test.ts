import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  canRunBusyboxRootfs,
  makeBusyboxRootfs,
} from '../../../packages/platform-terminal/test/support/busybox-rootfs.js';
import {
  createHarness,
  type Harness,
} from '../../../packages/platform-terminal/test/support/harness.js';

/*
 * Issue 23 item 14: the proot rootfs bound the host's /tmp (an apt-get inside wrote a host file),
 * and the LOW terminal.linux_status followed an absolute etc/os-release link to a host file.
 * Real proot over the busybox rootfs the package's tests build.
 */

let harness: Harness;
let rootfs: string;
const hostFiles: string[] = [];

beforeEach(async () => {
  harness = await createHarness();
  rootfs = harness.rootfs.directory('debian');
});

afterEach(async () => {
  for (const file of hostFiles.splice(0)) await rm(file, { force: true });
  await harness.dispose();
});

describe.skipIf(!canRunBusyboxRootfs)('the rootfs is its own root', () => {
  it('has its own /tmp and /etc: a write to /tmp inside never reaches the host', async () => {
    await makeBusyboxRootfs(rootfs);
    await harness.rootfs.markReady('debian');
    const name = `toolsys-rootfs-leak-${randomBytes(6).toString('hex')}`;
    const hostPath = join(tmpdir(), name);
    hostFiles.push(hostPath, join('/tmp', name));
    const created = await harness.data<{ sessionId: string }>('terminal.create', {
      backend: 'proot',
    });
    const wrote = await harness.data<{ exitCode: number; output: string }>('terminal.run', {
      sessionId: created.sessionId,
      command: `echo leaked > /tmp/${name} && cat /tmp/${name}; cat /etc/passwd 2>&1 | head -n 1`,
    });
    expect(wrote.exitCode).toBe(0);
    expect(wrote.output).toContain('leaked');
    expect(existsSync(hostPath)).toBe(false);
    expect(existsSync(join('/tmp', name))).toBe(false);
    expect(existsSync(join(rootfs, 'tmp', name))).toBe(true);
    // The busybox rootfs has no passwd: the host's is not bound in.
    expect(wrote.output).not.toContain('root:x:0:0');
    // The same for commands the package tools run inside (apt-get for linux_packages).
    const second = `${name}-run`;
    hostFiles.push(join('/tmp', second));
    const run = await harness.rootfs.run('debian', ['/bin/sh', '-c', `echo x > /tmp/${second}`], {
      timeoutMs: 10_000,
    });
    expect(run.exitCode).toBe(0);
    expect(existsSync(join('/tmp', second))).toBe(false);
    expect(existsSync(join(rootfs, 'tmp', second))).toBe(true);
  });

  it('reads os-release and shells inside the rootfs: links never lead to host files', async () => {
    await makeBusyboxRootfs(rootfs);
    await harness.rootfs.markReady('debian');
    const hostRelease = join(dirname(rootfs), `host-os-release-${randomBytes(4).toString('hex')}`);
    await writeFile(hostRelease, 'PRETTY_NAME="HOST FILE READ"\n');
    await unlink(join(rootfs, 'etc', 'os-release'));
    await symlink(hostRelease, join(rootfs, 'etc', 'os-release'));
    const viaAbsolute = await harness.data<{ osName: string | null }>('terminal.linux_status', {});
    expect(viaAbsolute.osName).not.toBe('HOST FILE READ');
    expect(viaAbsolute.content).not.toContain('HOST FILE READ');
    await unlink(join(rootfs, 'etc', 'os-release'));
    await symlink(`../../../../../../../../..${hostRelease}`, join(rootfs, 'etc', 'os-release'));
    const viaClimb = await harness.data<{ osName: string | null }>('terminal.linux_status', {});
    expect(viaClimb.content).not.toContain('HOST FILE READ');
    // A link that stays inside is followed, as in a chroot.
    await mkdir(join(rootfs, 'usr', 'lib'), { recursive: true });
    await writeFile(join(rootfs, 'usr', 'lib', 'os-release'), 'PRETTY_NAME="Inside Linux 2"\n');
    await unlink(join(rootfs, 'etc', 'os-release'));
    await symlink('/usr/lib/os-release', join(rootfs, 'etc', 'os-release'));
    const inside = await harness.data<{ osName: string | null }>('terminal.linux_status', {});
    expect(inside.osName).toBe('Inside Linux 2');

    // The rootfs's /etc/shells as a link to a host list naming /bin/sh: not the rootfs's list.
    const hostShells = join(dirname(rootfs), 'host-shells');
    await writeFile(hostShells, '/bin/sh\n');
    await symlink(hostShells, join(rootfs, 'etc', 'shells'));
    const refused = await harness.call('terminal.create', { backend: 'proot', shell: 'sh' });
    expect(!refused.ok && [refused.error.code, refused.error.field]).toEqual([
      'INVALID_ARGUMENT',
      'shell',
    ]);
  });
});
