/**
 * Executable lookup on a search path, as a careful shell does it (absolute entries only, regular
 * files with the execute bit), or as a spawned child does it, to say which program a command runs.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Options for {@link findExecutable}. */
export interface FindExecutableOptions {
  /**
   * The search path: folders separated by the platform's delimiter (`:` on POSIX). Default:
   * `env.PATH`, and nothing is found when that is unset.
   */
  path?: string;
  /** The environment whose `PATH` is searched when `path` is not given. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Look up as a child spawned in this folder does instead: a relative entry of the search path
   * resolves against it (an empty entry is the folder itself), and so does a `name` containing
   * `/`, which is then returned resolved. For telling which program a command would really run,
   * not for choosing one to run. Default: the careful lookup.
   */
  spawnCwd?: string;
}

/**
 * The path of the executable `name` on the search path: the first absolute folder of it holding a
 * regular file of that name that this process may execute. Empty and relative entries are skipped
 * (they would name a program from whatever folder the process happens to run in). A `name`
 * containing `/` is not searched: it is returned as given when it is an executable regular file.
 * With `spawnCwd`, relative entries and names count too, resolved as a spawned child would.
 * Undefined when nothing is found.
 */
export async function findExecutable(
  name: string,
  options: FindExecutableOptions = {},
): Promise<string | undefined> {
  if (name === '') return undefined;
  const { spawnCwd } = options;
  if (name.includes('/')) {
    const candidate = spawnCwd === undefined ? name : resolve(spawnCwd, name);
    return (await isExecutableFile(candidate)) ? candidate : undefined;
  }
  const path = options.path ?? (options.env ?? process.env).PATH ?? '';
  for (const directory of path.split(delimiter)) {
    let candidate: string;
    if (spawnCwd !== undefined)
      candidate = resolve(spawnCwd, directory === '' ? '.' : directory, name);
    else if (isAbsolute(directory)) candidate = join(directory, name);
    else continue;
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
