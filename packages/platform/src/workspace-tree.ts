/**
 * Recursive removal and copy inside held workspace folders, never following a link (Node's `rm`
 * and `cp` recurse by path and would).
 */
import { constants } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rmdir,
  symlink,
  unlink,
} from 'node:fs/promises';
import { posix } from 'node:path';
import { CHUNK_BYTES, escaped, isLinkError, verifyDescriptor } from './workspace-descriptors.js';
import { openSubdirectory, pathInDirectory, type WorkspaceDirectory } from './workspace-fs.js';

/**
 * Deletes `name` inside a held folder, recursively for a folder, without ever following a link:
 * each sub-folder is opened with O_NOFOLLOW from the one held before (a link found there is
 * unlinked, not entered), so a folder swapped for a link during the walk cannot make it delete
 * anything outside. Node's `rm` recurses by path and would follow such a link.
 */
export async function removeEntry(directory: WorkspaceDirectory, name: string): Promise<void> {
  const path = pathInDirectory(directory, name);
  const stats = await lstat(path);
  if (!stats.isDirectory()) {
    await unlink(path);
    return;
  }
  const inner = await openSubdirectory(directory, name);
  try {
    for (const child of await readdir(inner.path)) await removeEntry(inner, child);
  } finally {
    await inner.handle.close();
  }
  await rmdir(path);
}

/**
 * Copies `sourceName` of a held folder to `destinationName` of another, recursively, links copied
 * as links (never followed), files opened with O_NOFOLLOW and checked, new files and folders
 * created exclusively inside the held destination. Modes and timestamps are kept. Node's `cp`
 * recurses by path and would follow a folder swapped for a link during the copy.
 */
export async function copyEntry(
  source: WorkspaceDirectory,
  sourceName: string,
  destination: WorkspaceDirectory,
  destinationName: string,
): Promise<void> {
  const from = pathInDirectory(source, sourceName);
  const to = pathInDirectory(destination, destinationName);
  const stats = await lstat(from);
  if (stats.isSymbolicLink()) {
    await symlink(await readlink(from), to);
    return;
  }
  if (stats.isDirectory()) {
    const inner = await openSubdirectory(source, sourceName);
    try {
      await mkdir(to, stats.mode & 0o7777);
      const target = await openSubdirectory(destination, destinationName);
      try {
        for (const child of await readdir(inner.path)) {
          await copyEntry(inner, child, target, child);
        }
        await target.handle.utimes(stats.atime, stats.mtime);
      } finally {
        await target.handle.close();
      }
    } finally {
      await inner.handle.close();
    }
    return;
  }
  if (!stats.isFile()) {
    throw Object.assign(new Error('cannot copy a special file'), {
      code: 'EINVAL',
      path: posix.join(source.root, source.relative, sourceName),
    });
  }
  const relative = source.relative === '.' ? sourceName : `${source.relative}/${sourceName}`;
  let input: FileHandle;
  try {
    input = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (isLinkError(error)) throw escaped(relative, 'changed during the copy: it is a link now');
    throw error;
  }
  try {
    await verifyDescriptor(input, source.root, relative);
    const output = await open(
      to,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      stats.mode & 0o7777,
    );
    try {
      await verifyDescriptor(output, destination.root, destination.relative);
      const buffer = Buffer.alloc(CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        await output.write(buffer, 0, bytesRead);
      }
      await output.utimes(stats.atime, stats.mtime);
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}
