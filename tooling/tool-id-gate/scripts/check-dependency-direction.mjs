// Keeps dependencies pointing one way: apps -> app-*, platform-*, mcp-client -> core-tool-registry.
// Core imports no sibling; app-* and platform-* never import each other.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../../', import.meta.url).pathname;
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
  const siblings = deps.filter((dep) => dep.startsWith('@toolsys/') && dep !== '@toolsys/tsconfig');
  for (const sibling of siblings) {
    const allowed = folder !== 'core-tool-registry' && sibling === '@toolsys/core-tool-registry';
    const testDevice = sibling === '@toolsys/android-sim' && manifest.devDependencies?.[sibling];
    if (!allowed && !testDevice) problems.push(`${manifest.name} must not depend on ${sibling}`);
  }
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log('dependency direction ok');
