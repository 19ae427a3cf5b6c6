import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandsWithoutSilent, updateReadmeExamples } from './readme-examples.js';
import { listWorkspacePackages, repoRoot } from './workspace.js';

const check = process.argv.includes('--check');
let failed = false;
for (const workspacePackage of listWorkspacePackages()) {
  const outcome = updateReadmeExamples(workspacePackage, { check });
  if (outcome === undefined) continue;
  const file = outcome.file.slice(repoRoot.length + 1);
  if (outcome.status === 'stale') {
    failed = true;
    process.stderr.write(
      `${file}: example blocks differ from the files; run \`pnpm readme:examples\`.\n`,
    );
  } else if (outcome.status === 'invalid') {
    failed = true;
    for (const problem of outcome.problems) process.stderr.write(`${file}: ${problem}\n`);
  } else process.stdout.write(`${file}: ${outcome.status}\n`);
}
const readmes = [
  join(repoRoot, 'README.md'),
  ...listWorkspacePackages().map((entry) => join(entry.dir, 'README.md')),
];
for (const readme of readmes.filter((file) => existsSync(file))) {
  for (const line of commandsWithoutSilent(readFileSync(readme, 'utf8'))) {
    failed = true;
    process.stderr.write(
      `${readme.slice(repoRoot.length + 1)}: add --silent after pnpm so only the output shows: ${line.trim()}\n`,
    );
  }
}
process.exitCode = failed ? 1 : 0;
