/**
 * Opening and reading inside the workspace without following links: held folders, entries,
 * whole files, and the parent folder of a target.
 */
import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open } from 'node:fs/promises';
import { posix, sep } from 'node:path';
import {
  DIRECTORY_FLAGS,
  descriptorPath,
  escaped,
  hasProcFd,
  isLinkError,
  openChild,
  splitRelative,
  verifyDescriptor,
} from './workspace-descriptors.js';
import type { WorkspacePath } from './workspace-paths.js';

/** A folder of the workspace held open: paths under {@link path} resolve relative to it. */
export interface WorkspaceDirectory {
  /** The open descriptor. */
  handle: FileHandle;
  /** `/proc/self/fd/N`: a path that resolves to this very folder, whatever happens to the tree. */
  path: string;
  /** The folder relative to the workspace root (`.` for the root). */
  relative: string;
  /** The real workspace root. */
  root: string;
}

/** A file or folder of the workspace held open and checked to lie inside the root. */
export interface WorkspaceEntry {
  /** The open descriptor. */
  handle: FileHandle;
  /** `/proc/self/fd/N`: reopening it gives the same file, not whatever the path names now. */
  path: string;
}

/**
 * Opens a workspace folder without following any link on the way from the root. With `create`,
 * missing folders are made, each inside the folder held just before. A link where a folder should
 * be (the tree changed since the path was resolved) gives PERMISSION_DENIED.
 */
export async function openWorkspaceDirectory(
  root: string,
  relative: string,
  options: { create?: boolean } = {},
): Promise<WorkspaceDirectory> {
  let current = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  let currentPath = root;
  try {
    for (const name of splitRelative(relative)) {
      let next: FileHandle;
      try {
        next = await openChild(current, currentPath, name, DIRECTORY_FLAGS);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (
          isLinkError(error) ||
          (code === 'ENOTDIR' && (await isLink(current, currentPath, name)))
        ) {
          throw escaped(
            relative,
            'changed during the call: a symbolic link stands where a folder was',
          );
        }
        if (code !== 'ENOENT' || options.create !== true) throw error;
        const target = hasProcFd
          ? `${descriptorPath(current)}/${name}`
          : posix.join(currentPath, name);
        await mkdir(target).catch((mkdirError: NodeJS.ErrnoException) => {
          if (mkdirError.code !== 'EEXIST') throw mkdirError;
        });
        try {
          next = await openChild(current, currentPath, name, DIRECTORY_FLAGS);
        } catch (retryError) {
          if (isLinkError(retryError)) {
            throw escaped(
              relative,
              'changed during the call: a symbolic link stands where a folder was',
            );
          }
          throw retryError;
        }
      }
      await current.close();
      current = next;
      currentPath = posix.join(currentPath, name);
    }
    await verifyDescriptor(current, root, relative);
    return {
      handle: current,
      path: hasProcFd ? descriptorPath(current) : currentPath,
      relative,
      root,
    };
  } catch (error) {
    await current.close().catch(() => undefined);
    throw withWorkspacePath(error, root, relative);
  }
}

/** Names the workspace path (not the /proc path) on a file-system error, for its message. */
function withWorkspacePath(error: unknown, root: string, relative: string): unknown {
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code === 'string' && typeof errno.path === 'string') {
    errno.path = posix.join(root, relative);
  }
  return error;
}

/**
 * Opens the folder `name` inside an open workspace folder without following a link, and checks
 * it lies inside the root. A link there gives PERMISSION_DENIED.
 */
export async function openSubdirectory(
  parent: WorkspaceDirectory,
  name: string,
): Promise<WorkspaceDirectory> {
  const relative = parent.relative === '.' ? name : `${parent.relative}/${name}`;
  let handle: FileHandle;
  try {
    handle = await open(
      hasProcFd ? `${parent.path}/${name}` : posix.join(parent.path, name),
      DIRECTORY_FLAGS,
    );
  } catch (error) {
    if (isLinkError(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw escaped(relative, 'changed during the call: it is not a folder any more');
    }
    throw withWorkspacePath(error, parent.root, relative);
  }
  try {
    await verifyDescriptor(handle, parent.root, relative);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return {
    handle,
    path: hasProcFd ? descriptorPath(handle) : posix.join(parent.path, name),
    relative,
    root: parent.root,
  };
}

/**
 * Checks that a held workspace folder still lies inside the root (it may have been moved since it
 * was opened); throws PERMISSION_DENIED otherwise. Call it right before creating the final name of
 * a file in the folder.
 */
export async function verifyWorkspaceDirectory(directory: WorkspaceDirectory): Promise<void> {
  await verifyDescriptor(directory.handle, directory.root, directory.relative);
}

/** A path for `name` inside an open workspace folder, resolved through the held descriptor. */
export function pathInDirectory(directory: WorkspaceDirectory, name: string): string {
  return posix.join(directory.path, name);
}

async function isLink(parent: FileHandle, parentPath: string, name: string): Promise<boolean> {
  const path = hasProcFd ? `${descriptorPath(parent)}/${name}` : posix.join(parentPath, name);
  const stats = await lstat(path).catch(() => undefined);
  return stats?.isSymbolicLink() === true;
}

function parentOf(relative: string): { folder: string; name: string } {
  const parts = splitRelative(relative);
  const name = parts.pop() ?? '.';
  return { folder: parts.length === 0 ? '.' : parts.join('/'), name };
}

/**
 * Opens a resolved workspace path (file or folder) for reading without following any link, and
 * checks the descriptor lies inside the root. The caller closes {@link WorkspaceEntry.handle}.
 */
export async function openWorkspaceEntry(target: WorkspacePath): Promise<WorkspaceEntry> {
  if (target.relative === '.') {
    const directory = await openWorkspaceDirectory(target.root, '.');
    return { handle: directory.handle, path: directory.path };
  }
  const { folder, name } = parentOf(target.relative);
  const directory = await openWorkspaceDirectory(target.root, folder);
  try {
    let handle: FileHandle;
    try {
      handle = await openChild(
        directory.handle,
        posix.join(target.root, folder),
        name,
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
    } catch (error) {
      if (isLinkError(error)) {
        throw escaped(target.relative, 'changed during the call: it is a symbolic link now');
      }
      throw withWorkspacePath(error, target.root, target.relative);
    }
    try {
      await verifyDescriptor(handle, target.root, target.relative);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return { handle, path: hasProcFd ? descriptorPath(handle) : target.absolute };
  } finally {
    await directory.handle.close();
  }
}

/**
 * Reads a whole regular file of the workspace race-free (see {@link openWorkspaceEntry}); undefined
 * when it is missing, not a regular file, or reached through a link.
 */
export async function readWorkspaceFile(
  root: string,
  relative: string,
): Promise<Buffer | undefined> {
  const target = {
    root,
    relative: relative.split(sep).join('/'),
    absolute: posix.join(root, relative),
    exists: true,
  };
  try {
    return await withWorkspaceEntry(target, async (entry) =>
      (await entry.handle.stat()).isFile() ? entry.handle.readFile() : undefined,
    );
  } catch {
    return undefined;
  }
}

/** Runs `use` with the open entry and closes it afterwards. */
export async function withWorkspaceEntry<T>(
  target: WorkspacePath,
  use: (entry: WorkspaceEntry) => Promise<T>,
): Promise<T> {
  const entry = await openWorkspaceEntry(target);
  try {
    return await use(entry);
  } finally {
    await entry.handle.close();
  }
}

/** Runs `use` with the folder that holds `target` open, and closes it afterwards. */
export async function withParentDirectory<T>(
  target: WorkspacePath,
  use: (directory: WorkspaceDirectory, name: string) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const { folder, name } = parentOf(target.relative);
  const directory = await openWorkspaceDirectory(target.root, folder, options);
  try {
    return await use(directory, name);
  } finally {
    await directory.handle.close();
  }
}
