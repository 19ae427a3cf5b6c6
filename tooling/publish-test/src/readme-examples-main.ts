import { updateReadmeExamples } from './readme-examples.js';
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
process.exitCode = failed ? 1 : 0;
