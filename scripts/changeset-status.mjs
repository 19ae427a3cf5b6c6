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
const config = JSON.parse(readFileSync(join(root, '.changeset', 'config.json'), 'utf8'));
const base = typeof config.baseBranch === 'string' ? config.baseBranch : 'main';

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

const args = ['exec', 'changeset', 'status', ...process.argv.slice(2)];
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
const result = spawnSync('pnpm', args, { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
