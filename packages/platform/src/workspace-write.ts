import { constants } from 'node:fs';
import { type FileHandle, link, lstat, open, rename, unlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import { tempFileName, writeChunksAndSync } from './atomic-write.js';
import {
  descriptorPath,
  escaped,
  hasProcFd,
  isLinkError,
  openChild,
  verifyDescriptor,
} from './workspace-descriptors.js';
import { pathInDirectory, type WorkspaceDirectory, withParentDirectory } from './workspace-fs.js';
import type { WorkspacePath } from './workspace-paths.js';

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
      const temp = tempFileName(name);
      const handle = await open(
        at(temp),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        mode,
      );
      let renamed = false;
      try {
        await verifyDescriptor(handle, target.root, target.relative);
        await writeChunksAndSync(handle, bytes, { signal: options.signal });
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
