import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MARK_OSC, renderMark } from './shell-marks.js';
import type { ShellIntegration } from './terminal-session.js';

/**
 * Where the init file is written and where the shell reads it: `local` the same path under the
 * temp folder, `sandbox` a file bound into the sandbox at {@link SANDBOX_INIT_FOLDER}, `rootfs`
 * a folder in the rootfs's own /tmp (proot shows it at `/tmp/…`).
 */
export type ShellInitPlace =
  | { readonly kind: 'local' }
  | { readonly kind: 'sandbox' }
  | { readonly kind: 'rootfs'; readonly rootfs: string };

/** Options for {@link writeShellInit}. */
export interface ShellInitOptions {
  /** The shell's name (`bash`, `sh`, `dash`, `ash`, `busybox`, `zsh`). */
  readonly shellName: string;
  /** How the session learns where commands start and end; `none` needs no init file. */
  readonly integration: ShellIntegration;
  /** The session's secret mark key. */
  readonly markKey: string;
  readonly place: ShellInitPlace;
}

/** How a shell reads the session's settings once, from a file, before its first prompt. */
export interface ShellInit {
  /** The shell's arguments. */
  readonly args: string[];
  /** Variables to add to the shell's environment (only the file's path, never the key). */
  readonly env: Record<string, string>;
  /** bubblewrap options that show the file inside the sandbox (empty elsewhere). */
  readonly sandboxArguments: string[];
  /** Removes the file and its folder. */
  dispose(): Promise<void>;
}

/** Where a sandboxed shell finds its init file (inside the sandbox's own /run tmpfs). */
export const SANDBOX_INIT_FOLDER = '/run/toolsys/shell';

/**
 * Writes the settings that make the shell print the session's marks (PS0 and PROMPT_COMMAND
 * for bash, PS1 for sh, dash, ash and zsh) to a private file the shell reads as it starts: bash
 * as its `--rcfile`, sh-like shells as `$ENV`, zsh as `$ZDOTDIR/.zshenv`. The file empties
 * itself with a shell builtin before the first prompt, so the mark key lives only in the
 * shell's memory as unexported variables: never in its environment (`/proc/<shell>/environ`
 * shows the environment it started with), its arguments, a child's environment or a file.
 */
export async function writeShellInit(options: ShellInitOptions): Promise<ShellInit> {
  const { shellName, integration, place } = options;
  const zsh = shellName === 'zsh';
  const baseArgs = shellArguments(shellName);
  if (integration === 'none') {
    return { args: baseArgs, env: {}, sandboxArguments: [], dispose: async () => undefined };
  }
  const name = zsh ? '.zshenv' : 'init';
  let hostFolder: string;
  let guestFolder: string;
  if (place.kind === 'rootfs') {
    const folder = `.toolsys-shell-${randomBytes(12).toString('hex')}`;
    hostFolder = join(place.rootfs, 'tmp', folder);
    guestFolder = `/tmp/${folder}`;
    await mkdir(hostFolder, { mode: 0o700 });
  } else {
    hostFolder = await mkdtemp(join(tmpdir(), 'toolsys-init-'));
    guestFolder = place.kind === 'sandbox' ? SANDBOX_INIT_FOLDER : hostFolder;
  }
  const hostFile = join(hostFolder, name);
  const guestFile = `${guestFolder}/${name}`;
  const dispose = () => rm(hostFolder, { recursive: true, force: true });
  try {
    await writeFile(hostFile, initScript(options, guestFile), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    await dispose();
    throw error;
  }
  const sandboxArguments = place.kind === 'sandbox' ? ['--bind', hostFile, guestFile] : [];
  if (integration === 'bash') {
    return {
      args: ['--noprofile', '--rcfile', guestFile, '-i'],
      env: {},
      sandboxArguments,
      dispose,
    };
  }
  if (zsh) {
    // Without -f: the private ZDOTDIR's .zshenv runs (after the system's, as with -f) and turns
    // every later startup file off.
    return {
      args: baseArgs.filter((argument) => argument !== '-f'),
      env: { ZDOTDIR: guestFolder },
      sandboxArguments,
      dispose,
    };
  }
  return { args: baseArgs, env: { ENV: guestFile }, sandboxArguments, dispose };
}

/** The arguments of a shell started without an init file. */
export function shellArguments(shellName: string): string[] {
  // rbash is bash too: without --norc it would run the user's ~/.bashrc before any confirmed input.
  if (shellName === 'bash' || shellName === 'rbash') return ['--noprofile', '--norc', '-i'];
  // No partial-line marker (PROMPT_SP) or carriage return before the prompt: they are not output.
  if (shellName === 'zsh') return ['-f', '+o', 'promptsp', '+o', 'promptcr', '-i'];
  return ['-i'];
}

/** A shell word in single quotes (the values hold no quote, but stay safe if one did). */
function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The init file: the mark settings as plain (unexported) shell variables, then the file emptied
 * by a builtin redirection before anything else runs.
 */
function initScript(options: ShellInitOptions, guestFile: string): string {
  const { shellName, integration, markKey } = options;
  const empty = `: >| ${quote(guestFile)}`;
  if (integration === 'bash') {
    return [
      `PS0=${quote(renderMark({ kind: 'start' }, markKey))}`,
      `PROMPT_COMMAND=${quote(`__toolsys_rc=$?; printf "\\033]${MARK_OSC};P;${markKey};%s\\007" "$__toolsys_rc"`)}`,
      empty,
      '',
    ].join('\n');
  }
  const prompt = promptWithMarks(shellName, markKey);
  if (shellName === 'zsh') {
    return [
      'unsetopt global_rcs',
      'setopt no_rcs',
      `PS1=${quote(prompt)}`,
      'unset ZDOTDIR',
      empty,
      '',
    ].join('\n');
  }
  return [`PS1=${quote(prompt)}`, 'unset ENV', empty, ''].join('\n');
}

/**
 * The prompt of a shell with `prompt` integration: a mark carrying the last exit code, then `$ `.
 * sh, dash and busybox ash expand `$?` in PS1; zsh expands `%?`.
 */
export function promptWithMarks(shellName: string, markKey: string): string {
  const status = shellName === 'zsh' ? '%?' : '$?';
  const mark = `\u001b]${MARK_OSC};P;${markKey};${status}\u0007`;
  return shellName === 'zsh' ? `%{${mark}%}%# ` : `${mark}$ `;
}
