/**
 * The on-disk half of the read scope: whether the relative paths that read-only commands read
 * lead out of the workspace through a symbolic link.
 */
import { lstat, readdir } from 'node:fs/promises';
import { posix } from 'node:path';
import { resolveWorkspacePath } from '../workspace-paths.js';
import { HAS_GLOB } from './destructive-commands.js';

/** Most paths whose symbolic links are checked; past it the command asks. */
const MAX_LINK_CHECKS = 256;

/** What {@link findLinkOutside} checks. */
export interface LinkCheck {
  /** The workspace root, absolute and normalised. */
  root: string;
  /** The folder relative paths are taken from, absolute and normalised. */
  cwd: string;
  /** The relative paths the command reads. */
  paths: ReadonlySet<string>;
  /** Those of `paths` that hold an unquoted glob character. */
  globbed: ReadonlySet<string>;
}

/**
 * Checks, on disk, that the relative paths read by allow-listed commands do not lead out of the
 * workspace through a symbolic link (existing or dangling, at any depth). For a glob, the folder
 * it lists is checked, and so is every entry of that folder that is a link. Returns why the
 * command needs a confirmation, or undefined when every path stays inside.
 */
export async function findLinkOutside(check: LinkCheck): Promise<string | undefined> {
  const { root, cwd, paths, globbed } = check;
  if (paths.size === 0) return undefined;
  // A root that does not exist holds no links.
  if ((await lstat(root).catch(() => undefined)) === undefined) return undefined;
  if (paths.size > MAX_LINK_CHECKS) return 'the command names too many paths to check';
  for (const path of paths) {
    const absolute = posix.resolve(cwd, path);
    const parts = posix.relative(root, absolute).split('/');
    const globAt = globbed.has(path) ? parts.findIndex((part) => HAS_GLOB.test(part)) : -1;
    const fixed = globAt < 0 ? parts : parts.slice(0, globAt);
    const base = posix.join(root, ...fixed);
    if (!(await staysInside(root, base))) {
      return `the command reads ${path}, which leads outside the workspace through a link`;
    }
    if (globAt < 0) continue;
    const entries = await readdir(base).catch(() => [] as string[]);
    for (const entry of entries) {
      const candidate = posix.join(base, entry);
      const stats = await lstat(candidate).catch(() => undefined);
      if (stats?.isSymbolicLink() === true && !(await staysInside(root, candidate))) {
        return `the glob ${path} may match a link that leads outside the workspace (${entry})`;
      }
    }
  }
  return undefined;
}

async function staysInside(root: string, absolute: string): Promise<boolean> {
  try {
    await resolveWorkspacePath(root, absolute);
    return true;
  } catch {
    return false;
  }
}
