// A workspace folder for tests of tools that read and write files, with a sibling they must not reach.
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createTempDir } from './temp-dirs.js';

/** The folders {@link createTempWorkspace} made; remove `base` to remove them all. */
export interface TempWorkspace {
  /** The new temp folder, resolved (no symbolic link on its path), holding the other two. */
  readonly base: string;
  /** The workspace root the tools under test are given: `<base>/<rootName>`. */
  readonly root: string;
  /** `<base>/<outsideName>`: a folder beside the workspace, for escape attempts to aim at. */
  readonly outside: string;
}

/** Options for {@link createTempWorkspace}. */
export interface TempWorkspaceOptions {
  /** The name of the workspace folder inside `base`. Default: `workspace`. */
  rootName?: string;
  /** The name of the folder beside the workspace. Default: `outside`. */
  outsideName?: string;
}

/**
 * Creates a fresh temp folder (name starting with `prefix`) holding an empty workspace folder and
 * an empty folder beside it (`outside` unless named otherwise). Remove it with `removeTempDir(workspace.base)`.
 */
export async function createTempWorkspace(
  prefix: string,
  options: TempWorkspaceOptions = {},
): Promise<TempWorkspace> {
  const base = await realpath(await createTempDir(prefix));
  const root = join(base, options.rootName ?? 'workspace');
  const outside = join(base, options.outsideName ?? 'outside');
  await mkdir(root);
  await mkdir(outside);
  return { base, root, outside };
}

/**
 * Writes each file of `files` (relative path → UTF-8 text) under `directory`, creating the folders
 * on the way.
 */
export async function writeFiles(
  directory: string,
  files: Readonly<Record<string, string>>,
): Promise<void> {
  for (const [relative, text] of Object.entries(files)) {
    const path = join(directory, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
}
