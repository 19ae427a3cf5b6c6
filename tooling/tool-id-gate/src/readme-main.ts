import { resolve } from 'node:path';
import { collectTools } from './collect.js';
import { updateReadmes } from './readme-tables.js';

const check = process.argv.includes('--check');
const root = resolve(import.meta.dirname, '../../..');
const outcomes = updateReadmes(root, await collectTools(), { check });
let failed = false;
for (const { file, status } of outcomes) {
  if (status === 'stale') {
    failed = true;
    process.stderr.write(`${file}: tool table is out of date; run \`pnpm readme:tools\`.\n`);
  } else if (status === 'missing-markers') {
    failed = true;
    process.stderr.write(
      `${file}: needs a "## Tools" section with <!-- tools:start --> and <!-- tools:end --> markers.\n`,
    );
  } else process.stdout.write(`${file}: ${status}\n`);
}
process.exitCode = failed ? 1 : 0;
