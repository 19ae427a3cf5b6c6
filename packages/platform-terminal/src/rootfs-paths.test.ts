import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRootfsFile, readRootfsFile, resolveInRootfs } from './rootfs-paths.js';

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'rootfs-paths-')));
  root = join(base, 'rootfs');
  outside = join(base, 'host-secret');
  await mkdir(join(root, 'etc'), { recursive: true });
  await mkdir(join(root, 'usr', 'lib'), { recursive: true });
  await writeFile(outside, 'PRETTY_NAME="host secret"\n');
  await writeFile(join(root, 'usr', 'lib', 'os-release'), 'PRETTY_NAME="inside"\n');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('rootfs paths resolve as in a chroot', () => {
  it('starts absolute link targets again at the rootfs, never on the host', async () => {
    await symlink(outside, join(root, 'etc', 'os-release'));
    expect(await resolveInRootfs(root, '/etc/os-release')).toBe(join(root, outside));
    expect(await readRootfsFile(root, 'etc/os-release')).toBeUndefined();
    expect(await isRootfsFile(root, 'etc/os-release')).toBe(false);
  });

  it('follows links that stay inside, absolute or relative', async () => {
    await symlink('/usr/lib/os-release', join(root, 'etc', 'os-release'));
    expect(await readRootfsFile(root, '/etc/os-release')).toContain('inside');
    await symlink('../usr/lib/os-release', join(root, 'etc', 'relative'));
    expect(await readRootfsFile(root, 'etc/relative')).toContain('inside');
  });

  it('keeps .. at the rootfs top, in paths and in link targets', async () => {
    await symlink('../../../../../../host-secret', join(root, 'etc', 'climb'));
    expect(await resolveInRootfs(root, 'etc/climb')).toBe(join(root, 'host-secret'));
    expect(await readRootfsFile(root, 'etc/climb')).toBeUndefined();
    expect(await readRootfsFile(root, '../../host-secret')).toBeUndefined();
  });

  it('gives up on link loops and refuses a folder link that leads outside', async () => {
    await symlink('loop-b', join(root, 'etc', 'loop-a'));
    await symlink('loop-a', join(root, 'etc', 'loop-b'));
    expect(await resolveInRootfs(root, 'etc/loop-a')).toBeUndefined();
    expect(await readRootfsFile(root, 'etc/loop-a')).toBeUndefined();
  });
});
