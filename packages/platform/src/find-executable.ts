/**
 * Executable lookup on a search path, as a careful shell does it: absolute entries only, regular
 * files with the execute bit.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/** Options for {@link findExecutable}. */
export interface FindExecutableOptions {
  /**
   * The search path: folders separated by the platform's delimiter (`:` on POSIX). Default:
   * `env.PATH`, and nothing is found when that is unset.
   */
  path?: string;
  /** The environment whose `PATH` is searched when `path` is not given. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The path of the executable `name` on the search path: the first absolute folder of it holding a
 * regular file of that name that this process may execute. Empty and relative entries are skipped
 * (they would name a program from whatever folder the process happens to run in). A `name`
 * containing `/` is not searched: it is returned as given when it is an executable regular file.
 * Undefined when nothing is found.
 */
export async function findExecutable(
  name: string,
  options: FindExecutableOptions = {},
): Promise<string | undefined> {
  if (name === '') return undefined;
  if (name.includes('/')) return (await isExecutableFile(name)) ? name : undefined;
  const path = options.path ?? (options.env ?? process.env).PATH ?? '';
  for (const directory of path.split(delimiter)) {
    if (!isAbsolute(directory)) continue;
    const candidate = join(directory, name);
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
