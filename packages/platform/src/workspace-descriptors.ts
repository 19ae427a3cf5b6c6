/**
 * The descriptor primitives behind race-free workspace file access: paths through
 * `/proc/self/fd`, opening one child of a held folder without following a link, and checking that
 * a descriptor still lies inside the root.
 */
import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';
import { posix, sep } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

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
/** Whether `/proc/self/fd` paths reach held descriptors (Linux). */
export const hasProcFd = process.platform === 'linux' && existsSync(PROC_FD);

/** Flags that open a folder and refuse a link. */
export const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Bytes read or written per call when copying or writing. */
export const CHUNK_BYTES = 1024 * 1024;

function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return candidate.startsWith(prefix);
}

/** The PERMISSION_DENIED error for a path that led, or could lead, outside the workspace. */
export function escaped(relative: string, why: string): ToolError {
  return new ToolError(
    ToolErrorCode.PERMISSION_DENIED,
    `path: "${relative}" ${why}; file tools never read or write outside the workspace root`,
    {
      field: 'path',
      hint: 'Another process is changing this part of the workspace. Do not retry the same path; check it with list_files first.',
    },
  );
}

/** `/proc/self/fd/N` for an open descriptor. */
export function descriptorPath(handle: FileHandle): string {
  return `${PROC_FD}/${handle.fd}`;
}

/** Checks that an open descriptor really lies inside the real root; throws PERMISSION_DENIED. */
export async function verifyDescriptor(
  handle: FileHandle,
  root: string,
  relative: string,
): Promise<void> {
  if (!hasProcFd) return;
  const real = (await readlink(descriptorPath(handle))).replace(/ \(deleted\)$/, '');
  if (!isInside(root, real)) throw escaped(relative, 'led outside the workspace during the call');
}

/** The names of a workspace-relative path (none for the root). */
export function splitRelative(relative: string): string[] {
  return relative === '.' || relative === '' ? [] : relative.split('/');
}

/** Opens `name` inside a held folder (through its descriptor where `/proc` allows). */
export async function openChild(
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

/** Whether an open failed because O_NOFOLLOW met a link. */
export function isLinkError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ELOOP' || code === 'EMLINK';
}
