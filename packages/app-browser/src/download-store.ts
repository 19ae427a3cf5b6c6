import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, link, open, realpath, rename, unlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { isToolError } from '@toolsys/core-tool-registry';
import {
  openWorkspaceDirectory,
  pathInDirectory,
  verifyWorkspaceDirectory,
  type WorkspaceDirectory,
} from '@toolsys/platform';

/** Where downloads are saved: a folder of the workspace. */
export interface DownloadFolder {
  /** The workspace root (absolute). */
  readonly workspaceRoot: string;
  /** The downloads folder relative to the root, `/`-separated (`downloads`). */
  readonly relative: string;
}

/** What {@link saveDownload} did. */
export type SavedDownload =
  | {
      readonly ok: true;
      /** The name the file was saved under, in the downloads folder. */
      readonly name: string;
      readonly bytes: number;
      /** Set when `name` differs from the name asked for, which was already taken. */
      readonly renamedFrom?: string;
    }
  | { readonly ok: false; readonly reason: 'too-large'; readonly bytes: number }
  | { readonly ok: false; readonly reason: 'folder'; readonly message: string };

/** How many other names are tried when the asked-for one is taken (`name-2.ext` …). */
const MAX_NAME_TRIES = 1_000;
const NEW_FILE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * The name tried after `name` was taken: `report.pdf` → `report-2.pdf`, `archive.tar.gz` →
 * `archive-2.tar.gz`, `.env` → `.env-2`.
 */
export function alternativeName(name: string, attempt: number): string {
  const dot = name.indexOf('.', 1);
  return dot === -1 ? `${name}-${attempt}` : `${name.slice(0, dot)}-${attempt}${name.slice(dot)}`;
}

/**
 * Saves a finished download into the workspace's downloads folder, race-free and without ever
 * replacing anything:
 * - the folder is opened from the workspace root one component at a time without following a
 *   link (the core workspace file layer), so a link at any depth, planted before or during the
 *   call, refuses the save instead of sending it outside;
 * - the bytes go to a temp file created exclusively in that held folder, counted as they arrive:
 *   past `maxBytes` the stream is dropped and the temp file removed;
 * - the file gets its final name by a hard link, which fails when anything (a file, a folder, a
 *   link) already has that name; the next free name (`report-2.pdf` …) is taken instead and
 *   reported. Where hard links are not supported, the name is reserved with an exclusive create
 *   and the temp file renamed onto that reservation.
 */
export async function saveDownload(
  folder: DownloadFolder,
  name: string,
  source: Readable,
  maxBytes: number,
): Promise<SavedDownload> {
  let directory: WorkspaceDirectory;
  try {
    const root = await realpath(folder.workspaceRoot);
    directory = await openWorkspaceDirectory(root, folder.relative, { create: true });
  } catch (error) {
    source.destroy();
    const code = (error as NodeJS.ErrnoException).code;
    if (isToolError(error) || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EEXIST') {
      return {
        ok: false,
        reason: 'folder',
        message: `the downloads folder ${folder.relative} is reached through a symbolic link or is not a folder; downloads are saved only into a real folder inside the workspace`,
      };
    }
    throw error;
  }
  const temp = `.${name}.${randomBytes(6).toString('hex')}.part`;
  const tempPath = pathInDirectory(directory, temp);
  try {
    const handle = await open(tempPath, NEW_FILE_FLAGS, 0o644);
    let bytes: number;
    try {
      bytes = await copyBounded(source, handle, maxBytes);
    } finally {
      await handle.close();
    }
    if (bytes > maxBytes) return { ok: false, reason: 'too-large', bytes };
    await verifyWorkspaceDirectory(directory);
    const chosen = await claimFreeName(directory, tempPath, name);
    return {
      ok: true,
      name: chosen,
      bytes,
      ...(chosen === name ? {} : { renamedFrom: name }),
    };
  } catch (error) {
    if (isToolError(error)) {
      return {
        ok: false,
        reason: 'folder',
        message: `the downloads folder ${folder.relative} was moved or replaced by a link while the download was saved; nothing was written`,
      };
    }
    throw error;
  } finally {
    source.destroy();
    await unlink(tempPath).catch(() => undefined);
    await directory.handle.close();
  }
}

/**
 * Copies `source` into `handle`, at most `maxBytes` + 1 bytes: a larger source is dropped at that
 * point. Returns the bytes written (more than `maxBytes` means too large).
 */
async function copyBounded(
  source: Readable,
  handle: FileHandle,
  maxBytes: number,
): Promise<number> {
  let written = 0;
  for await (const chunk of source) {
    const buffer = chunk as Buffer;
    const room = maxBytes + 1 - written;
    const part = buffer.length > room ? buffer.subarray(0, room) : buffer;
    await handle.write(part, 0, part.length, written);
    written += part.length;
    if (written > maxBytes) {
      source.destroy();
      break;
    }
  }
  return written;
}

/** Gives the temp file the first free name of `name`, `name-2` …; returns the name taken. */
async function claimFreeName(
  directory: WorkspaceDirectory,
  tempPath: string,
  name: string,
): Promise<string> {
  for (let attempt = 1; attempt <= MAX_NAME_TRIES; attempt += 1) {
    const candidate = attempt === 1 ? name : alternativeName(name, attempt);
    const target = pathInDirectory(directory, candidate);
    try {
      await link(tempPath, target);
      return candidate;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') {
        throw error;
      }
    }
    // No hard links on this file system: reserve the name, then move the bytes onto it.
    let reserved: FileHandle;
    try {
      reserved = await open(target, NEW_FILE_FLAGS, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    await reserved.close();
    await rename(tempPath, target);
    return candidate;
  }
  throw new Error(`no free name for ${name} after ${MAX_NAME_TRIES} tries`);
}
