import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packPackage } from '../src/pack.js';
import { listPublicPackages, repoRoot } from '../src/workspace.js';

const publicPackages = listPublicPackages();
const rootLicense = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');
const dependencyFields = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

let scratch: string;
const packed = new Map<string, PackedPackage>();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-hygiene-'));
  for (const entry of publicPackages) {
    packed.set(entry.name, packPackage(entry.dir, join(scratch, entry.relativeDir)));
  }
});

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

/** The packed package of `name`, packed in beforeAll. */
function tarballOf(name: string): PackedPackage {
  const result = packed.get(name);
  if (result === undefined) throw new Error(`${name} was not packed`);
  return result;
}

/** Every file an `exports` map points at, with the conditions that lead to it. */
function exportTargets(exportsField: unknown, conditions: string[] = []): [string, string[]][] {
  if (typeof exportsField === 'string') return [[exportsField, conditions]];
  if (exportsField === null || typeof exportsField !== 'object') return [];
  return Object.entries(exportsField).flatMap(([key, value]) =>
    exportTargets(value, [...conditions, key]),
  );
}

/** `./dist/x.js` → `dist/x.js`. */
function normalise(path: string): string {
  return posix.normalize(path).replace(/^\.\//, '');
}

it('finds the public packages through pnpm-workspace.yaml', () => {
  const names = publicPackages.map((entry) => entry.name);
  expect(names).toEqual(
    expect.arrayContaining([
      '@toolsys/core-tool-registry',
      '@toolsys/core-tools',
      '@toolsys/host',
      '@toolsys/mcp-client',
      '@toolsys/platform-cs-mem',
    ]),
  );
  expect(names).not.toContain('@toolsys/tsconfig');
});

it('has an MIT LICENSE at the repository root', () => {
  expect(rootLicense).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} Toolsys contributors\n/);
});

describe.each(publicPackages.map((entry) => [entry.name, entry] as const))('%s', (name, entry) => {
  it('ships the root LICENSE in its tarball', () => {
    const { files, root } = tarballOf(name);
    // pnpm pack adds the workspace root's LICENSE when the package folder has none.
    expect(files, `list LICENSE in the "files" of ${entry.relativeDir}`).toContain('LICENSE');
    expect(
      readFileSync(join(root, 'LICENSE'), 'utf8'),
      `${entry.relativeDir}/LICENSE differs from the root LICENSE: delete it`,
    ).toBe(rootLicense);
  });

  it('declares license, repository, homepage, bugs, engines and public access', () => {
    const { manifest } = tarballOf(name);
    expect(manifest).toMatchObject({
      license: 'MIT',
      repository: {
        type: 'git',
        url: 'https://github.com/toolsys/toolsys.git',
        directory: entry.relativeDir,
      },
      homepage: `https://github.com/toolsys/toolsys/tree/main/${entry.relativeDir}#readme`,
      bugs: { url: 'https://github.com/toolsys/toolsys/issues' },
      engines: { node: expect.stringMatching(/^>=\d+/) },
      publishConfig: { access: 'public' },
    });
  });

  it('publishes real version ranges, never workspace: or catalog:', () => {
    const { manifest } = tarballOf(name);
    for (const field of dependencyFields) {
      const ranges = Object.entries((manifest[field] ?? {}) as Record<string, string>);
      for (const [dependency, range] of ranges) {
        expect(range, `${field}.${dependency}`).not.toMatch(/^(workspace|catalog):/);
      }
    }
  });

  it('ships every file its exports and bin point at, and no test files', () => {
    const { files, manifest } = tarballOf(name);
    const targets = exportTargets(manifest.exports)
      .map(([target]) => target)
      .filter((target) => !target.endsWith('/'));
    const bins =
      typeof manifest.bin === 'string'
        ? [manifest.bin]
        : Object.values((manifest.bin ?? {}) as Record<string, string>);
    expect(targets.length + bins.length).toBeGreaterThan(0);
    for (const target of [...targets, ...bins]) {
      expect(files, `${target} is missing: is the package built?`).toContain(normalise(target));
    }
    expect(files.filter((file) => /\.test\.(js|d\.ts)$/.test(file))).toEqual([]);
  });

  it('publishes no workspace-only export condition', () => {
    const { manifest } = tarballOf(name);
    // The workspace resolves `@toolsys/source` to TypeScript sources, which no tarball ships.
    const leaks = exportTargets(manifest.exports).filter(([, conditions]) =>
      conditions.includes('@toolsys/source'),
    );
    expect(leaks).toEqual([]);
  });

  it('starts every bin with a node shebang', () => {
    const { manifest, root } = tarballOf(name);
    const bins =
      typeof manifest.bin === 'string'
        ? [manifest.bin]
        : Object.values((manifest.bin ?? {}) as Record<string, string>);
    for (const bin of bins) {
      expect(readFileSync(join(root, bin), 'utf8').split('\n')[0], bin).toBe('#!/usr/bin/env node');
    }
  });

  it('has no source map whose sources are missing, and no reference to a missing map', () => {
    const { files, root } = tarballOf(name);
    const shipped = new Set(files);
    const dangling: string[] = [];
    for (const file of files.filter((candidate) => candidate.endsWith('.map'))) {
      const map = JSON.parse(readFileSync(join(root, file), 'utf8')) as {
        sources?: string[];
        sourceRoot?: string;
      };
      for (const source of map.sources ?? []) {
        const path = posix.normalize(posix.join(posix.dirname(file), map.sourceRoot ?? '', source));
        if (!shipped.has(path)) dangling.push(`${file} → ${source}`);
      }
    }
    for (const file of files.filter((candidate) => /\.(js|d\.ts)$/.test(candidate))) {
      const reference = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(
        readFileSync(join(root, file), 'utf8'),
      );
      if (reference?.[1] === undefined || reference[1].startsWith('data:')) continue;
      const path = posix.normalize(posix.join(posix.dirname(file), reference[1]));
      if (!shipped.has(path)) dangling.push(`${file} → ${reference[1]}`);
    }
    expect(
      dangling,
      'build without sourceMap/declarationMap (tsconfig.build.json), from an empty dist',
    ).toEqual([]);
  });

  it('ships a README with Install and Usage sections, the usage shown from examples/', () => {
    const { files, manifest, root } = tarballOf(name);
    expect(files).toContain('README.md');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toMatch(/^## Install$/m);
    expect(readme).toMatch(/^## Usage$/m);
    const usage = readme.slice(readme.search(/^## Usage$/m)).split(/^## (?!Usage)/m)[0] ?? '';
    if (manifest.bin !== undefined && /^```sh$/m.test(usage)) return; // a CLI shows commands
    expect(
      usage,
      `the Usage section of ${entry.relativeDir}/README.md shows an examples/*.ts file between <!-- example:start … --> markers`,
    ).toMatch(/<!-- example:start examples\/\S+\.ts -->/);
  });
});
