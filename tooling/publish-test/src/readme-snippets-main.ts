import { checkReadmeSnippets } from './readme-snippets.js';
import { listWorkspacePackages } from './workspace.js';

let failed = false;
for (const workspacePackage of listWorkspacePackages()) {
  if (workspacePackage.isPrivate) continue;
  for (const problem of checkReadmeSnippets(workspacePackage)) {
    failed = true;
    process.stderr.write(`${problem.readme}:${problem.line}: ${problem.message}\n`);
  }
}
if (!failed) process.stdout.write('README snippets compile\n');
process.exitCode = failed ? 1 : 0;
