import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';

/** Options for {@link resolveWorkspacePath}. */
export interface ResolveWorkspacePathOptions {
  /** Argument name used in error messages. Default `path`. */
  field?: string;
  /** Whether the workspace root itself is acceptable. Default true. */
  allowRoot?: boolean;
  /**
   * Whether a symlink at the final component is followed. Default true. Set false for operations
   * on the link itself (delete, move): the link's directory is checked, the link is not followed.
   */
  followFinalSymlink?: boolean;
}

/** A user path resolved inside the workspace. */
export interface WorkspacePath {
  /** Absolute path on disk, with the symlinks of its existing part resolved. */
  absolute: string;
  /** Path relative to the workspace root with `/` separators; `.` for the root. Safe to show. */
  relative: string;
  /** Whether something exists there (for a link not followed: the link itself). */
  exists: boolean;
  /** The workspace root, symlinks resolved. */
  root: string;
}

const MAX_SYMLINK_HOPS = 40;

function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return candidate.startsWith(prefix);
}

function outside(field: string, userPath: string, why: string): ToolError {
  return new ToolError(
    ToolErrorCode.PERMISSION_DENIED,
    `${field}: "${userPath}" ${why}; file tools are confined to the workspace root`,
    {
      field,
      hint: 'Use a path relative to the workspace root (list_files "." shows it); do not retry with another path outside it.',
    },
  );
}

async function realRoot(workspaceRoot: string): Promise<string> {
  try {
    return await realpath(workspaceRoot);
  } catch {
    throw new ToolError(ToolErrorCode.UNSUPPORTED, 'the workspace root does not exist', {
      hint: 'Ask the operator to create the workspace root or configure workspaceRoot.',
    });
  }
}

/**
 * Resolves the real path of `target`, whose parts may not exist yet: the longest existing prefix
 * is resolved with `realpath`; a dangling symlink is followed by hand so that creating a file
 * through it cannot land outside the root.
 */
async function resolveReal(target: string): Promise<{ path: string; exists: boolean }> {
  let current = target;
  const tail: string[] = [];
  for (let hops = 0; hops < MAX_SYMLINK_HOPS * 4; hops += 1) {
    try {
      const real = await realpath(current);
      return {
        path: tail.length === 0 ? real : join(real, ...tail.reverse()),
        exists: tail.length === 0,
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    try {
      const stats = await lstat(current);
      if (stats.isSymbolicLink()) {
        // A dangling link: continue from where it points.
        current = resolve(dirname(current), await readlink(current));
        continue;
      }
    } catch {
      // Does not exist: climb to the parent.
    }
    const parent = dirname(current);
    if (parent === current) return { path: join(current, ...tail.reverse()), exists: false };
    tail.push(basename(current));
    current = parent;
  }
  throw new Error('too many levels of symbolic links');
}

/**
 * Resolves a user-supplied path inside the workspace root. Relative paths are taken from the root;
 * absolute paths must lie inside it. `..` that climbs out of the root, absolute paths elsewhere and
 * symlinks (existing or dangling) that lead outside are refused with PERMISSION_DENIED naming the
 * field; the message repeats only the path the caller gave, never host paths.
 */
export async function resolveWorkspacePath(
  workspaceRoot: string,
  userPath: string,
  options: ResolveWorkspacePathOptions = {},
): Promise<WorkspacePath> {
  const field = options.field ?? 'path';
  if (userPath.includes('\0')) {
    throw new ToolError(ToolErrorCode.INVALID_ARGUMENT, `${field}: contains a NUL character`, {
      field,
    });
  }
  const root = await realRoot(workspaceRoot);
  const given = resolve(workspaceRoot);
  const trimmed = userPath.trim() === '' ? '.' : userPath;
  let lexical: string;
  if (isAbsolute(trimmed)) {
    const absolute = resolve(trimmed);
    if (isInside(root, absolute)) lexical = absolute;
    else if (isInside(given, absolute)) lexical = join(root, relative(given, absolute));
    else throw outside(field, userPath, 'is outside the workspace');
  } else {
    lexical = resolve(root, trimmed);
    if (!isInside(root, lexical)) throw outside(field, userPath, 'climbs out of the workspace');
  }
  const follow = options.followFinalSymlink ?? true;
  let absolute: string;
  let exists: boolean;
  try {
    if (follow || lexical === root) {
      ({ path: absolute, exists } = await resolveReal(lexical));
    } else {
      const parent = await resolveReal(dirname(lexical));
      absolute = join(parent.path, basename(lexical));
      exists =
        parent.exists &&
        (await lstat(absolute).then(
          () => true,
          () => false,
        ));
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'ELOOP';
    throw new ToolError(
      ToolErrorCode.EXECUTION_FAILED,
      `${field}: cannot resolve "${userPath}" (${code}: a symbolic link loop or an unreadable folder)`,
      { field, retryable: false, hint: 'Check the path with list_files and use another one.' },
    );
  }
  if (!isInside(root, absolute)) {
    throw outside(field, userPath, 'leads outside the workspace through a symbolic link');
  }
  if (options.allowRoot === false && absolute === root) {
    throw new ToolError(
      ToolErrorCode.PERMISSION_DENIED,
      `${field}: "${userPath}" is the workspace root itself, which this tool refuses`,
      { field, hint: 'Name a file or folder inside the workspace instead.' },
    );
  }
  const relativePath = relative(root, absolute).split(sep).join('/');
  return { absolute, relative: relativePath === '' ? '.' : relativePath, exists, root };
}
