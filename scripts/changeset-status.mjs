#!/usr/bin/env node
// `changeset status` for CI and contributors: fails when a published package changed without a
// changeset, or when the changesets config or a changeset file is invalid.
// Changesets compares HEAD with the config's base branch. A checkout that has no local base branch
// (a CI clone of a single branch, a detached HEAD) compares with `origin/<base>` when that exists;
// with neither, it checks the config and the changeset files against HEAD itself and says so.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The config's base branch; `main` when the config cannot be read (changesets then reports why). */
function baseBranch() {
  try {
    const config = JSON.parse(readFileSync(join(root, '.changeset', 'config.json'), 'utf8'));
    return typeof config.baseBranch === 'string' ? config.baseBranch : 'main';
  } catch {
    return 'main';
  }
}

const base = baseBranch();

/** Whether `ref` names a commit in this checkout. */
function isCommit(ref) {
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      cwd: root,
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

const args = ['status', ...process.argv.slice(2)];
if (!process.argv.slice(2).some((arg) => arg.startsWith('--since'))) {
  if (isCommit(base)) {
    // The default: changesets compares with the base branch itself.
  } else if (isCommit(`origin/${base}`)) {
    args.push(`--since=origin/${base}`);
  } else {
    console.warn(
      `changeset-status: no "${base}" or "origin/${base}" branch in this checkout; checking the ` +
        'config and the changeset files only (fetch the base branch to also check for missing changesets).',
    );
    args.push('--since=HEAD');
  }
}
const bin = join(root, 'node_modules', '.bin', 'changeset');
const result = spawnSync(bin, args, { cwd: root, stdio: 'inherit' });
if (result.error) {
  console.error(
    `changeset-status: cannot run ${bin} (${result.error.message}); run \`pnpm install\`.`,
  );
}
process.exit(result.status ?? 1);
