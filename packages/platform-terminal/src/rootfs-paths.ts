import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** Most symbolic links followed while resolving one path (as the kernel's limit of 40). */
const MAX_LINKS = 40;
/** Largest file read from a rootfs by the host (os-release, shells). */
const MAX_READ_BYTES = 64 * 1024;

/**
 * Resolves a path inside a rootfs as a chroot would: every component is looked up under `root`,
 * a symbolic link's absolute target starts again at `root`, and `..` never climbs above it. The
 * result is a host path under `root` (that may not exist), or undefined for a link loop. Nothing
 * of the host outside `root` is ever read or reached.
 */
export async function resolveInRootfs(root: string, path: string): Promise<string | undefined> {
  const pending = path.split('/').filter((part) => part !== '' && part !== '.');
  const resolved: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '..') {
      resolved.pop();
      continue;
    }
    const host = join(root, ...resolved, part);
    const stat = await lstat(host).catch(() => undefined);
    if (stat?.isSymbolicLink()) {
      links += 1;
      if (links > MAX_LINKS) return undefined;
      const target = await readlink(host);
      if (target.startsWith('/')) resolved.length = 0;
      pending.unshift(...target.split('/').filter((piece) => piece !== '' && piece !== '.'));
      continue;
    }
    resolved.push(part);
  }
  return join(root, ...resolved);
}

/**
 * Reads a small text file inside a rootfs (links resolved within it, see {@link resolveInRootfs});
 * undefined when it is absent, not a regular file, larger than 64 KiB, or swapped for a link
 * after it was resolved (the open does not follow a final link, and the file opened must lie
 * under the rootfs's real path).
 */
export async function readRootfsFile(root: string, path: string): Promise<string | undefined> {
  const host = await resolveInRootfs(root, path);
  if (host === undefined) return undefined;
  const handle = await open(
    host,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  ).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_READ_BYTES) return undefined;
    // A folder swapped for a link between resolving and opening would land outside: check
    // where the opened file really is.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => '');
    const base = await realpath(root).catch(() => root);
    if (!opened.startsWith(`${base}${sep}`)) return undefined;
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_READ_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Whether a path inside a rootfs (links resolved within it) is an existing regular file. */
export async function isRootfsFile(root: string, path: string): Promise<boolean> {
  const host = await resolveInRootfs(root, path);
  if (host === undefined) return false;
  return (await lstat(host).catch(() => undefined))?.isFile() === true;
}
