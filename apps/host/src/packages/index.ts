import { toolPackage as browserPackage } from '@toolsys/app-browser';
import { toolPackage as githubPackage } from '@toolsys/app-github';
import type { AnyToolPackageEntry } from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { toolPackage as mcpClientPackage } from '@toolsys/mcp-client';
import { toolPackage as androidPackage } from '@toolsys/platform-android';
import { toolPackage as csMemPackage } from '@toolsys/platform-cs-mem';
import { toolPackage as terminalPackage } from '@toolsys/platform-terminal';

/**
 * The packages the host composes without being told, in registration order, imported eagerly
 * (for tools that list every package, such as the tool-id gate). The CLI and
 * {@link composeDeployment} use {@link loadBuiltinPackages} instead, which imports them on demand.
 */
export const BUILTIN_PACKAGES: readonly AnyToolPackageEntry[] = [
  corePackage,
  mcpClientPackage,
  csMemPackage,
  terminalPackage,
  githubPackage,
  androidPackage,
  browserPackage,
];

export {
  BUILTIN_PACKAGE_KEYS,
  BUILTIN_PACKAGE_REFS,
  type BuiltinPackageRef,
  loadBuiltinPackages,
} from './builtin-packages.js';
export {
  type PackageSection,
  packageSwitchesSchema,
  parsePackageSection,
} from './package-section.js';
export { type LoadedPlugin, loadPlugins } from './plugin-loader.js';
