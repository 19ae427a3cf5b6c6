import type { AnyToolPackageEntry } from '@toolsys/core-tool-registry';

/** A built-in package the host composes without being told, loaded only when a deployment needs it. */
export interface BuiltinPackageRef {
  /** Its config key (`packages.<key>`). */
  readonly key: string;
  /** The npm name. */
  readonly name: string;
  /** Imports the package and returns its entry. */
  load(): Promise<AnyToolPackageEntry>;
}

/**
 * The built-in packages in registration order. Each loads on demand, so that the CLI's
 * `--version`, `--help` and config errors import none of them.
 */
export const BUILTIN_PACKAGE_REFS: readonly BuiltinPackageRef[] = [
  {
    key: 'core',
    name: '@toolsys/core-tools',
    load: async () => (await import('@toolsys/core-tools')).toolPackage,
  },
  {
    key: 'mcp-client',
    name: '@toolsys/mcp-client',
    load: async () => (await import('@toolsys/mcp-client')).toolPackage,
  },
  {
    key: 'cs-mem',
    name: '@toolsys/platform-cs-mem',
    load: async () => (await import('@toolsys/platform-cs-mem')).toolPackage,
  },
  {
    key: 'platform-terminal',
    name: '@toolsys/platform-terminal',
    load: async () => (await import('@toolsys/platform-terminal')).toolPackage,
  },
  {
    key: 'app-github',
    name: '@toolsys/app-github',
    load: async () => (await import('@toolsys/app-github/tool-package')).toolPackage,
  },
  {
    key: 'platform-android',
    name: '@toolsys/platform-android',
    load: async () => (await import('@toolsys/platform-android/tool-package')).toolPackage,
  },
  {
    key: 'app-browser',
    name: '@toolsys/app-browser',
    load: async () => (await import('@toolsys/app-browser')).toolPackage,
  },
];

/** The config keys of the built-in packages, in registration order. */
export const BUILTIN_PACKAGE_KEYS: readonly string[] = BUILTIN_PACKAGE_REFS.map((ref) => ref.key);

/** Loads every built-in package's entry (concurrently), in registration order. */
export async function loadBuiltinPackages(): Promise<AnyToolPackageEntry[]> {
  return await Promise.all(BUILTIN_PACKAGE_REFS.map((ref) => ref.load()));
}
