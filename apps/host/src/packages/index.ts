import { toolPackage as browserPackage } from '@toolsys/app-browser';
import { toolPackage as githubPackage } from '@toolsys/app-github';
import type { AnyToolPackageEntry } from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { toolPackage as mcpClientPackage } from '@toolsys/mcp-client';
import { toolPackage as androidPackage } from '@toolsys/platform-android';
import { toolPackage as csMemPackage } from '@toolsys/platform-cs-mem';
import { toolPackage as terminalPackage } from '@toolsys/platform-terminal';

/** The packages the host composes without being told, in registration order. */
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
  type PackageSection,
  packageSwitchesSchema,
  parsePackageSection,
} from './package-section.js';
export { type LoadedPlugin, loadPlugins } from './plugin-loader.js';
