/**
 * The git wrapper bound over `/usr/bin/git` inside the sandbox, the environment git runs with
 * there, and where the wrapper file is written on the host.
 */
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the real git is bound inside the sandbox, beside the wrapper that replaces it. */
export const REAL_GIT = '/run/toolsys/git';

/**
 * The git wrapper: runs the real git with every repository-controlled executable disabled
 * (fsmonitor, pager, hooks, external diff and textconv drivers, clean/smudge filters, signature
 * programs), so that a `.git/config` written earlier cannot make `git status` run a program.
 */
const GIT_WRAPPER = `#!/bin/sh
real=${REAL_GIT}
case "$1" in
  diff|log|show) sub=$1; shift; set -- "$sub" --no-ext-diff --no-textconv "$@" ;;
  blame) shift; set -- blame --no-textconv "$@" ;;
esac
drivers=$("$real" -c core.fsmonitor=false config --name-only --get-regexp '^filter\\..*\\.(clean|smudge|process)$' 2>/dev/null | sed -n 's/^filter\\.\\(.*\\)\\.[a-z]*$/\\1/p' | sort -u)
old_ifs=$IFS
IFS='
'
for driver in $drivers; do
  set -- -c "filter.$driver.clean=" -c "filter.$driver.smudge=" -c "filter.$driver.process=" -c "filter.$driver.required=false" "$@"
done
IFS=$old_ifs
exec "$real" -c core.fsmonitor=false -c core.pager=cat -c core.hooksPath=/dev/null \\
  -c diff.external= -c core.sshCommand=false -c core.askPass= -c credential.helper= \\
  -c log.showSignature=false -c gpg.program=false -c gpg.ssh.program=false \\
  -c gpg.x509.program=false -c protocol.allow=never -c core.alternateRefsCommand= "$@"
`;

/** Environment for git inside the sandbox: no system or user config, no pager. */
export const SANDBOX_GIT_ENVIRONMENT: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_NO_LAZY_FETCH: '1',
};

let gitWrapperPromise: Promise<string> | undefined;

/**
 * Writes the git wrapper and returns its path. The file lives in one folder per user and per
 * wrapper version under the temp directory, shared by every process, so a server stopped by a
 * signal leaves nothing new behind. The folder is used only when it is a real directory owned by
 * this user that nobody else can write to; otherwise the wrapper goes to a private temp folder
 * removed when the process exits.
 */
export function prepareGitWrapper(): Promise<string> {
  gitWrapperPromise ??= writeGitWrapper(tmpdir()).catch((error: unknown) => {
    gitWrapperPromise = undefined;
    throw error;
  });
  return gitWrapperPromise;
}

/** {@link prepareGitWrapper} under `root`, without the per-process cache; exported for tests. */
export async function writeGitWrapper(root: string): Promise<string> {
  const version = createHash('sha256').update(GIT_WRAPPER).digest('hex').slice(0, 12);
  const uid = process.getuid?.();
  if (uid !== undefined) {
    const folder = join(root, `toolsys-sandbox-${uid}-${version}`);
    await mkdir(folder, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    if (await isPrivateFolder(folder, uid)) {
      const file = join(folder, 'git');
      if ((await readFile(file, 'utf8').catch(() => undefined)) === GIT_WRAPPER) return file;
      // Written beside and renamed, so a concurrent process never runs a half-written file.
      const partial = join(folder, `git.${process.pid}.${randomBytes(4).toString('hex')}`);
      await writeFile(partial, GIT_WRAPPER, { mode: 0o555, flag: 'wx' });
      await rename(partial, file);
      return file;
    }
  }
  const folder = await mkdtemp(join(root, 'toolsys-sandbox-'));
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  const file = join(folder, 'git');
  await writeFile(file, GIT_WRAPPER, { mode: 0o555, flag: 'wx' });
  return file;
}

/** A directory (not a link) owned by `uid` that no other user can write to. */
async function isPrivateFolder(folder: string, uid: number): Promise<boolean> {
  const stats = await lstat(folder).catch(() => undefined);
  return stats?.isDirectory() === true && stats.uid === uid && (stats.mode & 0o022) === 0;
}
