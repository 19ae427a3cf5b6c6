import {
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { copyWorkspace } from './release-copy.js';
import { listPublicPackages, listWorkspacePackages, repoRoot } from './workspace.js';

let scratch: string | undefined;
afterEach(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A workspace with the given packages (folder → package.json) under its globs. */
function workspace(packages: Record<string, object>): string {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolsys-workspace-')));
  writeFileSync(join(scratch, 'package.json'), '{ "name": "root", "private": true }\n');
  writeFileSync(join(scratch, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n  - apps/*\n');
  for (const [folder, manifest] of Object.entries(packages)) {
    mkdirSync(join(scratch, folder), { recursive: true });
    writeFileSync(join(scratch, folder, 'package.json'), JSON.stringify(manifest));
  }
  return scratch;
}

it('finds a package added under a workspace glob, with no list to update', () => {
  const root = workspace({
    'packages/alpha': { name: '@x/alpha', version: '1.0.0' },
    'packages/beta': { name: '@x/beta', version: '1.0.0', private: true },
    'apps/gamma': { name: '@x/gamma', version: '2.0.0' },
  });
  expect(listWorkspacePackages(root).map((entry) => [entry.name, entry.relativeDir])).toEqual([
    ['@x/alpha', 'packages/alpha'],
    ['@x/beta', 'packages/beta'],
    ['@x/gamma', 'apps/gamma'],
  ]);
  expect(listPublicPackages(root).map((entry) => entry.name)).toEqual(['@x/alpha', '@x/gamma']);
});

it('copies a workspace with its workspace: dependencies linked inside the copy', () => {
  const root = workspace({
    'packages/alpha': { name: '@x/alpha', version: '1.0.0' },
    'apps/gamma': {
      name: '@x/gamma',
      version: '2.0.0',
      dependencies: { '@x/alpha': 'workspace:*', other: '1.0.0' },
    },
  });
  // The changelog generator the changesets config names comes from the real repository.
  mkdirSync(join(root, 'node_modules', '@changesets'), { recursive: true });
  symlinkSync(
    realpathSync(join(repoRoot, 'node_modules', '@changesets', 'cli')),
    join(root, 'node_modules', '@changesets', 'cli'),
  );
  writeFileSync(join(root, 'packages', 'alpha', 'index.js'), 'export {};\n');
  mkdirSync(join(root, 'packages', 'alpha', 'node_modules', 'junk'), { recursive: true });

  const copy = join(root, 'copy');
  const packages = copyWorkspace(root, copy);
  expect(packages.map((entry) => entry.name)).toEqual(['@x/alpha', '@x/gamma']);
  const link = join(copy, 'apps', 'gamma', 'node_modules', '@x', 'alpha');
  expect(resolve(join(link, '..'), readlinkSync(link))).toBe(join(copy, 'packages', 'alpha'));
  expect(realpathSync(join(copy, 'packages', 'alpha', 'index.js'))).toBe(
    join(copy, 'packages', 'alpha', 'index.js'),
  );
  expect(() => realpathSync(join(copy, 'packages', 'alpha', 'node_modules'))).toThrow();
});
