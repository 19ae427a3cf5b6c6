import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** A program found on PATH. */
export interface FoundProgram {
  readonly name: string;
  /** Absolute path. */
  readonly path: string;
}

/** Shells a session can start, in order of preference. */
export const KNOWN_SHELLS = ['bash', 'zsh', 'sh', 'dash'] as const;

/** Finds an executable on `PATH` (from the given environment); undefined when absent. */
export async function findProgram(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  if (name.includes('/')) {
    return (await isExecutable(name)) ? name : undefined;
  }
  const path = env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  for (const directory of path.split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The known shells present on this machine. */
export async function findShells(
  env: Readonly<Record<string, string | undefined>>,
): Promise<FoundProgram[]> {
  const found: FoundProgram[] = [];
  for (const name of KNOWN_SHELLS) {
    const path = await findProgram(name, env);
    if (path !== undefined) found.push({ name, path });
  }
  return found;
}
