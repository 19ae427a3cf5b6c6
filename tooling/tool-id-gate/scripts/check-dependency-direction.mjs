// Keeps dependencies pointing one way: tool packages -> platform -> kernel.
// - the kernel (`@toolsys/core-tool-registry`) depends on no sibling;
// - `@toolsys/platform` (shared infrastructure) depends on the kernel only;
// - every other package under packages/ (a tool set or a state store) may use the kernel and the
//   platform, never another tool set: core-tools is a leaf like app-*, platform-* and mcp-client.
// Test-only packages are allowed as devDependencies: the simulated device, for tests that drive the
// real adb against it, and the shared test helpers.
// And every module a published package's source loads (import, import(), require, lazyModule) is
// one it declares: under pnpm's strict layout, and for a user who installs it, an undeclared one
// is not there.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';

const root = new URL('../../../', import.meta.url).pathname;
const KERNEL = '@toolsys/core-tool-registry';
const PLATFORM = '@toolsys/platform';
/** Private packages that tests use; a tool package may have them as devDependencies only. */
const TEST_ONLY = new Set(['@toolsys/android-sim', '@toolsys/test-support']);

/** The siblings a package may depend on, by its name. */
function allowedSiblings(name) {
  if (name === KERNEL) return new Set();
  if (name === PLATFORM) return new Set([KERNEL]);
  return new Set([KERNEL, PLATFORM]);
}

const problems = [];
const packagesDir = join(root, 'packages');
for (const folder of readdirSync(packagesDir)) {
  const manifestPath = join(packagesDir, folder, 'package.json');
  if (!existsSync(manifestPath)) continue;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const deps = Object.keys({
    ...manifest.dependencies,
    ...manifest.peerDependencies,
    ...manifest.devDependencies,
  });
  const allowed = allowedSiblings(manifest.name);
  const siblings = deps.filter((dep) => dep.startsWith('@toolsys/') && dep !== '@toolsys/tsconfig');
  for (const sibling of siblings) {
    const testOnly = TEST_ONLY.has(sibling) && manifest.devDependencies?.[sibling] !== undefined;
    const runtime = manifest.dependencies?.[sibling] ?? manifest.peerDependencies?.[sibling];
    if (!allowed.has(sibling) && !(testOnly && runtime === undefined)) {
      problems.push(
        `${manifest.name} must not depend on ${sibling} (tool packages -> platform -> kernel)`,
      );
    }
  }
}
const BUILTINS = new Set(builtinModules);
/**
 * The workspace's own loader for running from TypeScript sources (the CPU pool's worker in source
 * mode); a built package never loads it.
 */
const SOURCE_MODE_ONLY = new Set(['tsx']);
/** Bare specifiers a source file loads: static and dynamic imports, require and lazyModule. */
const LOADS =
  /(?:^|[^\w.])(?:import|export)\s+(type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"./][^'"]*)['"]|(?:import|require|lazyModule(?:<[^\n]*?>)?)\(\s*['"]([^'"./][^'"]*)['"]/gm;

/** The package a specifier names (`@scope/name/sub` -> `@scope/name`). */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(?:ts|mts|js|mjs)$/.test(entry.name) && !/\.test\.[mc]?[tj]s$/.test(entry.name))
      yield path;
  }
}

const published = [
  ...readdirSync(packagesDir).map((folder) => join(packagesDir, folder)),
  join(root, 'apps', 'host'),
];
for (const dir of published) {
  const manifestPath = join(dir, 'package.json');
  if (!existsSync(manifestPath) || !existsSync(join(dir, 'src'))) continue;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const declared = new Set(
    Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
    }),
  );
  const dev = new Set(Object.keys({ ...manifest.devDependencies }));
  for (const file of sourceFiles(join(dir, 'src'))) {
    // Comments may show code (`@example`); only code counts.
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const match of code.matchAll(LOADS)) {
      const specifier = match[2] ?? match[3];
      if (!specifier || specifier.startsWith('node:') || BUILTINS.has(specifier)) continue;
      const name = packageOf(specifier);
      if (name === manifest.name || declared.has(name) || SOURCE_MODE_ONLY.has(name)) continue;
      // Types vanish at run time; a devDependency may provide them.
      if (match[1] && dev.has(name)) continue;
      problems.push(
        `${relative(root, file)} loads "${specifier}", which ${manifest.name} does not declare in its dependencies`,
      );
    }
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log('dependency direction and declared dependencies ok');
