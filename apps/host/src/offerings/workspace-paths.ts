import { readdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** Entries of one directory read for a completion, at most. */
const MAX_ENTRIES_READ = 2_000;

/**
 * Completes a path relative to the workspace root: the entries of the directory the value names
 * whose names start with its last segment, directories ending in `/`, hidden entries only when
 * that segment starts with `.`. A value that could leave the workspace — absolute, with a `..`
 * segment, a backslash or a NUL, or through a link whose target lies outside — completes to
 * nothing, as does a directory that does not exist.
 */
export async function completeWorkspacePath(
  workspaceRoot: string,
  value: string,
): Promise<string[]> {
  if (isAbsolute(value) || /[\\\0]/.test(value) || value.startsWith('~')) return [];
  const slash = value.lastIndexOf('/');
  const directory = slash === -1 ? '' : value.slice(0, slash);
  const prefix = value.slice(slash + 1);
  if (directory.split('/').some((segment) => segment === '..')) return [];
  let root: string;
  let target: string;
  try {
    root = await realpath(workspaceRoot);
    target = await realpath(join(root, directory));
  } catch {
    return [];
  }
  const inside = relative(root, target);
  if (inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) return [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(target, { withFileTypes: true });
  } catch {
    return [];
  }
  const base = slash === -1 ? '' : `${directory}/`;
  return entries
    .slice(0, MAX_ENTRIES_READ)
    .filter((entry) => entry.name.startsWith(prefix))
    .filter((entry) => prefix.startsWith('.') || !entry.name.startsWith('.'))
    .map((entry) => `${base}${entry.name}${entry.isDirectory() ? '/' : ''}`)
    .sort();
}
