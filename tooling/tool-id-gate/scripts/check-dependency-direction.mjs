// Keeps dependencies pointing one way: anything -> core-tool-registry (the kernel); apps, app-*,
// platform-* and mcp-client -> core-tools; core-tools -> the kernel only; the kernel -> nothing.
// app-* and platform-* never import each other.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../../', import.meta.url).pathname;
const KERNEL = '@toolsys/core-tool-registry';
const TOOLS = '@toolsys/core-tools';
/** Folders (under packages/) whose packages may use the core tool set and its platform pieces. */
const mayUseCoreTools = (folder) =>
  folder.startsWith('app-') || folder.startsWith('platform-') || folder === 'mcp-client';

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
    const allowed =
      (folder !== 'core-tool-registry' && sibling === KERNEL) ||
      (mayUseCoreTools(folder) && sibling === TOOLS);
    const testDevice = sibling === '@toolsys/android-sim' && manifest.devDependencies?.[sibling];
    if (!allowed && !testDevice) problems.push(`${manifest.name} must not depend on ${sibling}`);
  }
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log('dependency direction ok');
