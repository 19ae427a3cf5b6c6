// Keeps dependencies pointing one way: tool packages -> platform -> kernel.
// - the kernel (`@toolsys/core-tool-registry`) depends on no sibling;
// - `@toolsys/platform` (shared infrastructure) depends on the kernel only;
// - every other package under packages/ (a tool set or a state store) may use the kernel and the
//   platform, never another tool set: core-tools is a leaf like app-*, platform-* and mcp-client.
// Test-only packages are allowed as devDependencies: the simulated device, for tests that drive the
// real adb against it, and the shared test helpers.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log('dependency direction ok');
