import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import {
  type FileHandle,
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rename,
  rmdir,
  symlink,
  unlink,
} from 'node:fs/promises';
import { posix, sep } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { WorkspacePath } from './workspace-paths.js';

/*
 * Race-free file access inside the workspace.
 *
 * `resolveWorkspacePath` checks a path, but any later call that takes a path resolves it again,
 * and another process may have swapped a folder for a link to the outside in between (the
 * renameat2(RENAME_EXCHANGE) race). Node has no openat(), so the walk is done through
 * `/proc/self/fd/<dir>/<name>`: the kernel resolves the descriptor's magic link to the very folder
 * already held open, which makes each step relative to a folder we checked, exactly like openat().
 * From the real root, every component is opened with O_NOFOLLOW (and O_DIRECTORY for folders), so
 * no link is ever followed; a link found on the way means the tree changed during the call, and the
 * call is refused with PERMISSION_DENIED. The final descriptor is checked once more (the target of
 * /proc/self/fd/N must lie inside the real root) before it is used; temp files are created with
 * O_CREAT|O_EXCL|O_NOFOLLOW in the held folder, checked the same way, and renamed within that folder
 * after checking the folder is still inside the root. Running the file tools inside the command
 * sandbox would also work but costs a process per call; descriptors cost nothing and keep the tools
 * in-process. Without /proc (not Linux) the functions fall back to plain paths checked with realpath
 * before and after opening, which narrows the window but cannot close it.
 */

const PROC_FD = '/proc/self/fd';
const hasProcFd = process.platform === 'linux' && existsSync(PROC_FD);

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const CHUNK_BYTES = 1024 * 1024;

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

function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return candidate.startsWith(prefix);
}

function escaped(relative: string, why: string): ToolError {
  return new ToolError(
    ToolErrorCode.PERMISSION_DENIED,
    `path: "${relative}" ${why}; file tools never read or write outside the workspace root`,
    {
      field: 'path',
      hint: 'Another process is changing this part of the workspace. Do not retry the same path; check it with list_files first.',
    },
  );
}

function descriptorPath(handle: FileHandle): string {
  return `${PROC_FD}/${handle.fd}`;
}

/** Checks that an open descriptor really lies inside the real root; throws PERMISSION_DENIED. */
async function verifyDescriptor(handle: FileHandle, root: string, relative: string): Promise<void> {
  if (!hasProcFd) return;
  const real = (await readlink(descriptorPath(handle))).replace(/ \(deleted\)$/, '');
  if (!isInside(root, real)) throw escaped(relative, 'led outside the workspace during the call');
}

function splitRelative(relative: string): string[] {
  return relative === '.' || relative === '' ? [] : relative.split('/');
}

async function openChild(
  parent: FileHandle | undefined,
  parentPath: string,
  name: string,
  flags: number,
  mode?: number,
): Promise<FileHandle> {
  const path =
    hasProcFd && parent !== undefined
      ? `${descriptorPath(parent)}/${name}`
      : posix.join(parentPath, name);
  return open(path, flags, mode);
}

function isLinkError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ELOOP' || code === 'EMLINK';
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

/** Options for {@link writeWorkspaceFileAtomic}. */
export interface WriteWorkspaceFileOptions {
  /** Create missing parent folders (each inside the one held before). Default false. */
  createDirectories?: boolean;
  /** File mode of a new file. Default: the old file's mode, else 0o644. */
  mode?: number;
  /** Cancels the write; the old content stays and the temp file is removed. */
  signal?: AbortSignal;
  /**
   * Replace a file that exists at commit time. Default true. With false the temp file is linked to
   * the target name (link(2) never replaces), so a file created meanwhile by anyone is kept and the
   * write fails with {@link TargetExistsError}.
   */
  replace?: boolean;
}

/** The target of a no-replace commit exists: someone created it while the data was written. */
export class TargetExistsError extends Error {
  /** Always `EEXIST`, as the file system says it. */
  readonly code = 'EEXIST';
  constructor(relative: string) {
    super(`"${relative}" already exists`);
    this.name = 'TargetExistsError';
  }
}

/**
 * Moves `from` to `to` inside a held folder: a rename over it, or with `replace` false a link that
 * fails on an existing `to` (then `from` is removed), so nothing anyone created there is replaced.
 */
async function commitName(
  from: string,
  to: string,
  options: { replace: boolean; relative: string },
): Promise<void> {
  if (options.replace) {
    await rename(from, to);
    return;
  }
  try {
    await link(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new TargetExistsError(options.relative);
    }
    throw error;
  }
  await unlink(from).catch(() => undefined);
}

/**
 * Writes a workspace file atomically and race-free: the parent folder is opened without following
 * links, the temp file is created in it exclusively (O_EXCL|O_NOFOLLOW) and checked, and it is
 * renamed over the target inside that same folder once the folder is checked to still lie inside
 * the root. Nothing is ever created outside the workspace, whatever happens to the tree meanwhile.
 */
export async function writeWorkspaceFileAtomic(
  target: WorkspacePath,
  data: string | Uint8Array,
  options: WriteWorkspaceFileOptions = {},
): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  await withParentDirectory(
    target,
    async (directory, name) => {
      const at = (entry: string) =>
        hasProcFd ? `${directory.path}/${entry}` : posix.join(directory.path, entry);
      let mode = options.mode;
      if (mode === undefined) {
        const old = await lstat(at(name)).catch(() => undefined);
        mode = old?.isFile() === true ? old.mode & 0o7777 : 0o644;
      }
      const temp = `.${name}.${randomBytes(6).toString('hex')}.tmp`;
      const handle = await open(
        at(temp),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        mode,
      );
      let renamed = false;
      try {
        await verifyDescriptor(handle, target.root, target.relative);
        let written = 0;
        while (written < bytes.length) {
          options.signal?.throwIfAborted();
          const end = Math.min(written + CHUNK_BYTES, bytes.length);
          const { bytesWritten } = await handle.write(bytes, written, end - written, written);
          written += bytesWritten;
        }
        options.signal?.throwIfAborted();
        await handle.sync();
        await handle.close();
        await verifyDescriptor(directory.handle, target.root, target.relative);
        await commitName(at(temp), at(name), {
          replace: options.replace ?? true,
          relative: target.relative,
        });
        renamed = true;
      } finally {
        if (!renamed) {
          await handle.close().catch(() => undefined);
          await unlink(at(temp)).catch(() => undefined);
        }
      }
    },
    { create: options.createDirectories === true },
  );
}

/** A part file held open beside its target, for writes that take long or resume (downloads). */
export interface WorkspacePartFile {
  /** `/proc/self/fd/N`: opening, appending to or hashing this path reaches the held file. */
  path: string;
  /** Renames the part over the target inside the same held folder, checked to lie inside. */
  commit(): Promise<void>;
  /** Removes the part from the held folder. */
  discard(): Promise<void>;
}

/** Options for {@link withWorkspacePartFile}. */
export interface WorkspacePartFileOptions {
  /**
   * Names the part file among this target's parts (a download's digest of its URL): the part is
   * `.<target name>.<key>.part`, a hidden name no user file is expected to have; the same key finds
   * the same part again for a resume. Letters, digits and `-` only.
   */
  key: string;
  /** Keep what an earlier call wrote to the same part (a resumed download); false starts empty. */
  keepExisting: boolean;
  /** Let {@link WorkspacePartFile.commit} replace a file that exists by then. */
  replace: boolean;
}

/** Part files held open by this process, by absolute target and key: one writer per part. */
const heldParts = new Set<string>();

/**
 * Runs `use` with a private part file held open for writing in the folder of `target` (created as
 * needed), without following a link anywhere on the way, and checked to be a regular file inside
 * the root. The part is never the user's own `<name>.part`: it has a hidden name of its own
 * ({@link WorkspacePartFileOptions.key}), mode 0600, is created exclusively (O_EXCL), and only one
 * call of this process holds it at a time (another gets a retryable EXECUTION_FAILED). Commit links or renames it to the
 * target inside that same held folder; with `replace` false a file that appeared meanwhile is kept
 * and commit throws {@link TargetExistsError}. Another process swapping folders and links meanwhile
 * cannot make anything land outside the workspace.
 */
export async function withWorkspacePartFile<T>(
  target: WorkspacePath,
  options: WorkspacePartFileOptions,
  use: (part: WorkspacePartFile) => Promise<T>,
): Promise<T> {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(options.key)) {
    throw new Error(`invalid part file key: ${options.key}`);
  }
  const held = `${target.absolute}\0${options.key}`;
  if (heldParts.has(held)) {
    throw new ToolError(
      ToolErrorCode.EXECUTION_FAILED,
      `path: "${target.relative}" is being written by another call right now`,
      { field: 'path', retryable: true, hint: 'Wait for the other call to finish, then retry.' },
    );
  }
  heldParts.add(held);
  try {
    return await withParentDirectory(
      target,
      async (directory, name) => {
        const partName = `.${name}.${options.key}.part`;
        const at = (entry: string) =>
          hasProcFd ? `${directory.path}/${entry}` : posix.join(directory.path, entry);
        const handle = await openPart(directory, partName, target, options.keepExisting);
        try {
          await verifyDescriptor(handle, target.root, target.relative);
          if (!(await handle.stat()).isFile()) {
            throw escaped(
              target.relative,
              'has something other than a file where its part file goes',
            );
          }
          return await use({
            path: hasProcFd ? descriptorPath(handle) : at(partName),
            async commit() {
              await verifyDescriptor(directory.handle, target.root, target.relative);
              await commitName(at(partName), at(name), {
                replace: options.replace,
                relative: target.relative,
              });
            },
            async discard() {
              await unlink(at(partName)).catch(() => undefined);
            },
          });
        } finally {
          await handle.close().catch(() => undefined);
        }
      },
      { create: true },
    );
  } finally {
    heldParts.delete(held);
  }
}

/** Opens an earlier part to resume it, or creates a fresh one exclusively (never a link). */
async function openPart(
  directory: WorkspaceDirectory,
  partName: string,
  target: WorkspacePath,
  keepExisting: boolean,
): Promise<FileHandle> {
  const open = (flags: number) =>
    openChild(directory.handle, directory.path, partName, flags | constants.O_NOFOLLOW, 0o600);
  try {
    if (keepExisting) {
      try {
        return await open(constants.O_WRONLY);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    } else {
      await unlink(pathInDirectory(directory, partName)).catch(() => undefined);
    }
    return await open(constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  } catch (error) {
    if (isLinkError(error)) throw escaped(target.relative, 'has a link where its part file goes');
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `path: "${target.relative}" is being written by another process right now`,
        {
          field: 'path',
          retryable: true,
          hint: 'Wait for the other writer to finish, then retry.',
        },
      );
    }
    throw error;
  }
}

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
