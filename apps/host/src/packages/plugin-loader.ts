import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AnyToolPackageEntry, isToolPackageEntry } from '@toolsys/core-tool-registry';
import { withPluginToolMetadata } from './plugin-metadata.js';

/** A plugin named in `plugins`: its entry, or why it could not be loaded. */
export type LoadedPlugin =
  | { readonly name: string; readonly entry: AnyToolPackageEntry; readonly error?: undefined }
  | { readonly name: string; readonly entry?: undefined; readonly error: string };

const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

type ExportTarget = string | { [condition: string]: ExportTarget } | null | undefined;

/** The file an ESM `import` of the package would load, from its package.json. */
function entryFile(packageDirectory: string): string {
  const manifest = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8')) as {
    exports?: ExportTarget | Record<string, ExportTarget>;
    main?: string;
  };
  const pick = (target: ExportTarget): string | undefined => {
    if (typeof target === 'string') return target;
    if (!target || typeof target !== 'object') return undefined;
    for (const condition of ['import', 'node', 'default']) {
      const found = pick(target[condition]);
      if (found) return found;
    }
    return undefined;
  };
  const exportsField = manifest.exports;
  const root =
    exportsField && typeof exportsField === 'object' && '.' in exportsField
      ? (exportsField as Record<string, ExportTarget>)['.']
      : (exportsField as ExportTarget);
  return resolve(packageDirectory, pick(root) ?? manifest.main ?? 'index.js');
}

/** The package's directory in the nearest `node_modules` at or above `from`. */
function findPackageDirectory(name: string, from: string): string | undefined {
  let directory = resolve(from);
  for (;;) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

async function loadPlugin(name: string, configDir: string): Promise<LoadedPlugin> {
  if (!NPM_NAME.test(name)) {
    return { name, error: `"${name}" is not an npm package name` };
  }
  let module: Record<string, unknown>;
  try {
    // Installed beside the config file first, then beside the host itself (`npx`, global installs).
    const directory = findPackageDirectory(name, configDir);
    module = directory
      ? await import(pathToFileURL(entryFile(directory)).href)
      : await import(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${name}'`)) {
      return {
        name,
        error: `not installed: run \`npm install ${name}\` in ${configDir} or beside the host`,
      };
    }
    return { name, error: `failed to load: ${(error as Error).message}` };
  }
  const entry = module.toolPackage ?? module.default;
  if (!isToolPackageEntry(entry)) {
    return {
      name,
      error:
        'does not export a `toolPackage` entry (name, key, description, configSchema, detect, create); see defineToolPackage in @toolsys/core-tool-registry',
    };
  }
  // The kernel requires declared metadata; a plugin built without it is completed cautiously.
  return { name, entry: withPluginToolMetadata(entry) };
}

/** Loads every plugin named in the config, in order; a plugin that fails is reported, not thrown. */
export async function loadPlugins(
  names: readonly string[],
  configDir: string,
): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const name of names) loaded.push(await loadPlugin(name, configDir));
  return loaded;
}
