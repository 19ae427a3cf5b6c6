import { access, constants, readFile, realpath } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { findExecutable } from '@toolsys/platform';
import { readRootfsFile } from './rootfs-paths.js';

/** A program found on PATH. */
export interface FoundProgram {
  readonly name: string;
  /** Absolute path. */
  readonly path: string;
}

/** Shells a session can start, in order of preference. */
export const KNOWN_SHELLS = ['bash', 'zsh', 'sh', 'dash'] as const;

/** The system's list of valid login shells. */
export const SHELLS_FILE = '/etc/shells';

/**
 * Programs some systems list in /etc/shells (so that they can be a login shell) that are not
 * interactive shells: a session needs a prompt and exit codes, which a multiplexer does not give.
 */
const NOT_INTERACTIVE_SHELLS = new Set(['tmux', 'screen', 'byobu']);

/** Where the known shells are looked for when the system has no shells file. */
const SYSTEM_SHELL_DIRECTORIES = ['/usr/bin', '/bin'];

/**
 * Finds an executable on `PATH` (from the given environment; `/usr/local/bin:/usr/bin:/bin` when
 * it has none); undefined when absent.
 */
export async function findProgram(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  return findExecutable(name, { path: env.PATH ?? '/usr/local/bin:/usr/bin:/bin' });
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The known shells present on this machine and listed in /etc/shells. */
export async function findShells(
  env: Readonly<Record<string, string | undefined>>,
  options: { shellsFile?: string } = {},
): Promise<FoundProgram[]> {
  const found: FoundProgram[] = [];
  for (const name of KNOWN_SHELLS) {
    const resolved = await resolveShell(name, env, options);
    if (resolved.ok) found.push({ name, path: resolved.path });
  }
  return found;
}

/** A shell that may start: the /etc/shells entry to run, and its name. */
export interface ResolvedShell {
  readonly ok: true;
  /** The /etc/shells entry that is the same program as the one asked for (a system path). */
  readonly path: string;
  /** Name of that entry (`bash`, `sh`, `rbash`): it decides the arguments and shell integration. */
  readonly name: string;
}

/** Why a requested shell may not start, and the shells that may. */
export interface RefusedShell {
  readonly ok: false;
  /** One sentence, without the list of shells. */
  readonly reason: string;
  /** Names of the listed shells present on this machine, sorted. */
  readonly available: readonly string[];
}

/**
 * Resolves a shell asked for by name (looked up on PATH) or by absolute path, accepting it only
 * when its real path (symlinks resolved) is the real path of an entry of /etc/shells. What runs
 * is that entry, so a symlink named like a shell cannot stand in for another program, and a
 * link swapped after the check changes nothing.
 */
export async function resolveShell(
  wanted: string,
  env: Readonly<Record<string, string | undefined>>,
  options: { shellsFile?: string } = {},
): Promise<ResolvedShell | RefusedShell> {
  const listed = await listedShells(options.shellsFile ?? SHELLS_FILE);
  const available = [...new Set(listed.map((entry) => basename(entry.path)))].sort();
  const refuse = (reason: string): RefusedShell => ({ ok: false, reason, available });
  if (wanted.includes('/') && !isAbsolute(wanted)) {
    return refuse(`shell "${wanted}" is a relative path; give a shell name or an absolute path`);
  }
  const found = await findProgram(wanted, env);
  if (found === undefined) {
    return refuse(
      wanted.includes('/')
        ? `shell "${wanted}" does not exist or is not executable`
        : `shell "${wanted}" was not found on PATH`,
    );
  }
  const real = await realpath(found).catch(() => undefined);
  const matches = listed.filter((entry) => entry.real === real);
  if (matches.length === 0) {
    return refuse(
      `"${wanted}" is not a shell listed in ${SHELLS_FILE}; only a login shell can be started`,
    );
  }
  const sameName = matches.find((entry) => basename(entry.path) === basename(found));
  const entry = sameName ?? matches[0];
  if (entry === undefined) return refuse(`"${wanted}" is not a shell listed in ${SHELLS_FILE}`);
  return { ok: true, path: entry.path, name: basename(entry.path) };
}

/**
 * Entries of the shells file that exist and are executable, with their real paths, multiplexers
 * left out. A system without the file (some minimal container images) gets the known shells
 * found in /usr/bin and /bin instead.
 */
async function listedShells(file: string): Promise<{ path: string; real: string }[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT'
      ? SYSTEM_SHELL_DIRECTORIES.flatMap((directory) =>
          KNOWN_SHELLS.map((name) => join(directory, name)),
        ).join('\n')
      : '',
  );
  const entries: { path: string; real: string }[] = [];
  for (const line of text.split('\n')) {
    const path = line.trim();
    if (!path.startsWith('/') || entries.some((entry) => entry.path === path)) continue;
    if (NOT_INTERACTIVE_SHELLS.has(basename(path))) continue;
    if (!(await isExecutable(path))) continue;
    const real = await realpath(path).catch(() => undefined);
    if (real !== undefined) entries.push({ path, real });
  }
  return entries;
}

/**
 * Whether a shell asked for in a rootfs (`sh`, `/bin/bash`) is listed in the rootfs's own
 * /etc/shells; returns the listed path inside the rootfs, or undefined.
 */
export async function findRootfsListedShell(
  rootfs: string,
  wanted: string,
): Promise<string | undefined> {
  // Read as inside the rootfs: a link there never leads to a file of the host.
  const text = (await readRootfsFile(rootfs, SHELLS_FILE)) ?? '';
  const listed = text.split('\n').map((line) => line.trim());
  const candidates = wanted.includes('/') ? [wanted] : [`/bin/${wanted}`, `/usr/bin/${wanted}`];
  return candidates.find((candidate) => listed.includes(candidate));
}
