import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The fields of a package.json that publishing cares about. */
export interface PackageManifest {
  /** The npm name, e.g. `@toolsys/host`. */
  readonly name: string;
  /** The semver version. */
  readonly version: string;
  /** `true` for packages that are never published. */
  readonly private?: boolean;
  /** Every other field, as written. */
  readonly [field: string]: unknown;
}

/** A package of the pnpm workspace, as pnpm itself lists it from `pnpm-workspace.yaml`. */
export interface WorkspacePackage {
  /** The npm name. */
  readonly name: string;
  /** The package's folder, absolute. */
  readonly dir: string;
  /** The folder relative to the repository root, with `/` separators (`packages/mcp-client`). */
  readonly relativeDir: string;
  /** Whether the package is never published (`"private": true`). */
  readonly isPrivate: boolean;
  /** The parsed package.json. */
  readonly manifest: PackageManifest;
}

/** The repository root: the folder holding `pnpm-workspace.yaml`. */
export const repoRoot: string = resolve(import.meta.dirname, '../../..');

/**
 * Lists the workspace's packages (not the root) through `pnpm ls`, so the globs of
 * `pnpm-workspace.yaml` are read by pnpm itself and a new package is covered without a list here.
 */
export function listWorkspacePackages(root: string = repoRoot): WorkspacePackage[] {
  const output = execFileSync('pnpm', ['-r', 'ls', '--json', '--depth', '-1'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const listed = JSON.parse(output) as Array<{ name?: string; path: string }>;
  return listed
    .filter((entry) => resolve(entry.path) !== resolve(root))
    .map((entry) => {
      const dir = resolve(entry.path);
      const manifest = JSON.parse(
        readFileSync(join(dir, 'package.json'), 'utf8'),
      ) as PackageManifest;
      return {
        name: manifest.name,
        dir,
        relativeDir: dir
          .slice(resolve(root).length + 1)
          .split('\\')
          .join('/'),
        isPrivate: manifest.private === true,
        manifest,
      };
    })
    .sort((left, right) => left.name.localeCompare(right.name));
}

/** The workspace packages that are published to npm (every package not marked private). */
export function listPublicPackages(root: string = repoRoot): WorkspacePackage[] {
  return listWorkspacePackages(root).filter((entry) => !entry.isPrivate);
}
