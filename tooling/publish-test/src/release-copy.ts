import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { listWorkspacePackages, type WorkspacePackage } from './workspace.js';

/**
 * Root files a release needs: the workspace layout, npm settings, the pnpm hook that shapes the
 * published package.json, the license and the changesets.
 */
const rootEntries = [
  'package.json',
  'pnpm-workspace.yaml',
  '.npmrc',
  '.pnpmfile.cjs',
  'LICENSE',
  '.changeset',
];
/** Folders never copied: installs, caches and coverage reports. */
const skippedFolders = new Set(['node_modules', '.turbo', 'coverage']);

/**
 * Copies the workspace (built `dist` folders included, installs excluded) to `destination`, so a
 * release can be versioned and published there without touching the repository. The copy's
 * `node_modules` holds only `@changesets/cli`, which the changesets config names as its changelog
 * generator. Returns the copy's packages.
 */
export function copyWorkspace(root: string, destination: string): WorkspacePackage[] {
  mkdirSync(destination, { recursive: true });
  for (const entry of rootEntries) {
    if (existsSync(join(root, entry))) {
      cpSync(join(root, entry), join(destination, entry), { recursive: true });
    }
  }
  for (const workspacePackage of listWorkspacePackages(root)) {
    cpSync(workspacePackage.dir, join(destination, workspacePackage.relativeDir), {
      recursive: true,
      filter: (source) => !skippedFolders.has(basename(source)),
    });
  }
  const copied = listWorkspacePackages(destination);
  linkWorkspaceDependencies(copied);
  const changesets = join(destination, 'node_modules', '@changesets');
  mkdirSync(changesets, { recursive: true });
  symlinkSync(
    realpathSync(join(root, 'node_modules', '@changesets', 'cli')),
    join(changesets, 'cli'),
  );
  return copied;
}

/**
 * Links each package's `workspace:` dependencies into its `node_modules`, pointing at the copied
 * packages, as `pnpm install` would: `pnpm publish` reads the linked package's version from there
 * to replace the `workspace:` range.
 */
function linkWorkspaceDependencies(packages: readonly WorkspacePackage[]): void {
  const byName = new Map(packages.map((entry) => [entry.name, entry]));
  for (const entry of packages) {
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies'] as const) {
      const ranges = (entry.manifest[field] ?? {}) as Record<string, string>;
      for (const [name, range] of Object.entries(ranges)) {
        const target = byName.get(name);
        if (!range.startsWith('workspace:') || target === undefined) continue;
        const link = join(entry.dir, 'node_modules', name);
        if (existsSync(link)) continue;
        mkdirSync(dirname(link), { recursive: true });
        symlinkSync(relative(dirname(link), target.dir), link);
      }
    }
  }
}

/** Runs `changeset version` in a copy made by {@link copyWorkspace}. */
export function versionWithChangesets(copy: string, options: { timeoutMs: number }): void {
  execFileSync(
    process.execPath,
    [join(copy, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'],
    { cwd: copy, stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs },
  );
}

/** The version in a package folder's package.json. */
export function versionOf(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}
