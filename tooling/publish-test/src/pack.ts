import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A package packed the way `pnpm publish` packs it, and unpacked for inspection. */
export interface PackedPackage {
  /** The `.tgz` file. */
  readonly tarball: string;
  /** The unpacked tarball's `package/` folder. */
  readonly root: string;
  /** Every file in the tarball, relative to `package/`, with `/` separators. */
  readonly files: readonly string[];
  /** The packed package.json (workspace: and catalog: ranges already replaced). */
  readonly manifest: Record<string, unknown>;
}

/** Packs `dir` with `pnpm pack` into `destination` and unpacks it beside the tarball. */
export function packPackage(dir: string, destination: string): PackedPackage {
  mkdirSync(destination, { recursive: true });
  const output = execFileSync('pnpm', ['pack', '--json', '--pack-destination', destination], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const { filename } = JSON.parse(output) as { filename: string };
  const unpacked = join(
    destination,
    `${filename
      .split('/')
      .pop()
      ?.replace(/\.tgz$/, '')}`,
  );
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['-xzf', filename, '-C', unpacked]);
  const root = join(unpacked, 'package');
  const listing = execFileSync('tar', ['-tzf', filename], { encoding: 'utf8' });
  const files = listing
    .split('\n')
    .filter((line) => line.length > 0 && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''))
    .sort();
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  return { tarball: filename, root, files, manifest };
}
