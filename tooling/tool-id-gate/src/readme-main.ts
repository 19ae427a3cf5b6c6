import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUILTIN_PACKAGES } from '@toolsys/host';
import { measureCatalog, renderCatalogTable, replaceCatalogTable } from './catalog-figures.js';
import { collectTools } from './collect.js';
import { renderConfigReference, replaceConfigReference } from './config-reference.js';
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

// The host README's config reference, generated from the schemas the host validates with, and
// its catalog table, measured on the embedded default deployment.
const hostReadme = join(root, 'apps/host/README.md');
const readme = existsSync(hostReadme) ? readFileSync(hostReadme, 'utf8') : '';
const withReference = replaceConfigReference(readme, renderConfigReference(BUILTIN_PACKAGES));
const catalog = renderCatalogTable([await measureCatalog('all'), await measureCatalog('discover')]);
const next = withReference && replaceCatalogTable(withReference, catalog);
if (next === undefined) {
  failed = true;
  process.stderr.write(
    'apps/host/README.md: needs <!-- config:start --> / <!-- config:end --> and <!-- catalog:start --> / <!-- catalog:end --> markers.\n',
  );
} else if (next === readme) {
  process.stdout.write('apps/host/README.md: unchanged\n');
} else if (check) {
  failed = true;
  process.stderr.write(
    'apps/host/README.md: config reference or catalog table is out of date; run `pnpm readme:tools`.\n',
  );
} else {
  writeFileSync(hostReadme, next);
  process.stdout.write('apps/host/README.md: updated\n');
}
process.exitCode = failed ? 1 : 0;
