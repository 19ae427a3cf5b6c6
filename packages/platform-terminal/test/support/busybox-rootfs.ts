import { existsSync } from 'node:fs';
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The static busybox binary the test rootfs is made of. */
export const BUSYBOX = '/bin/busybox';

/** Whether proot and busybox are installed, so that a busybox rootfs can run. */
export const canRunBusyboxRootfs = existsSync('/usr/bin/proot') && existsSync(BUSYBOX);

/**
 * Makes a tiny rootfs from the static busybox binary: `bin` with a few applets, `etc/os-release`
 * (`Toolsys Test Linux 1`), and empty `root`, `tmp` and `workspace` folders.
 */
export async function makeBusyboxRootfs(directory: string): Promise<void> {
  for (const folder of ['bin', 'etc', 'root', 'tmp', 'workspace']) {
    await mkdir(join(directory, folder), { recursive: true });
  }
  await copyFile(BUSYBOX, join(directory, 'bin', 'busybox'));
  for (const applet of ['sh', 'cat', 'echo', 'ls', 'pwd', 'sleep', 'stty']) {
    await symlink('busybox', join(directory, 'bin', applet));
  }
  await writeFile(
    join(directory, 'etc', 'os-release'),
    'PRETTY_NAME="Toolsys Test Linux 1"\nID=toolsys-test\n',
  );
}
