// Bundles the `toolsys` command (dist/cli.js) into a few files, so that a start loads tens of
// modules instead of ~450: every MCP client starts its servers at launch, and on a busy machine
// resolving and reading each module file costs more than compiling it.
//
// What stays outside the bundle (EXTERNAL) is loaded on first use from node_modules: native
// modules, browsers, device and cloud clients. The bundle imports them by name, so each must be a
// dependency of @toolsys/host; the build fails otherwise. Workspace modules that locate files next
// to themselves (`import.meta.url`: the CPU worker, createRequire loaders, package.json) keep
// doing so, because `import.meta.url` in them is rewritten to their own installed file.
//
// Run by `pnpm build` after tsc; `node scripts/bundle-cli.mjs --analyze` prints the largest inputs.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HOST = dirname(dirname(fileURLToPath(import.meta.url)));
const manifest = JSON.parse(readFileSync(join(HOST, 'package.json'), 'utf8'));

/** Loaded on first use, never at start: native, large, or shipping files of their own. */
const EXTERNAL = [
  'playwright-core',
  'webdriverio',
  '@devicefarmer/adbkit',
  '@octokit/rest',
  '@octokit/plugin-throttling',
  'ioredis',
  '@opentelemetry/*',
  'mvdan-sh',
];

const externalName = (specifier) => {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};
const isExternal = (name) =>
  EXTERNAL.some((pattern) =>
    pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
  );

/** The workspace package a file belongs to: its name and root, or undefined for a dependency. */
const packageCache = new Map();
function workspacePackageOf(file) {
  if (file.includes(`${sep}node_modules${sep}`) && !file.includes(`${sep}@toolsys${sep}`)) {
    return undefined;
  }
  for (let directory = dirname(file); directory !== dirname(directory); ) {
    if (packageCache.has(directory)) return packageCache.get(directory);
    let found;
    try {
      const { name } = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
      found = name?.startsWith('@toolsys/') ? { name, root: directory } : undefined;
    } catch {
      directory = dirname(directory);
      continue;
    }
    packageCache.set(directory, found);
    return found;
  }
  return undefined;
}

/** `import.meta.url` of a workspace file, as the URL of that file where it is installed. */
const ownFileUrls = {
  name: 'own-file-urls',
  setup(context) {
    context.onLoad({ filter: /\.(?:js|ts)$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const owner = workspacePackageOf(args.path);
      if (!owner) {
        if (/\bimport\.meta\b|\b__dirname\b|\b__filename\b/.test(source)) {
          throw new Error(
            `${relative(HOST, args.path)} locates files next to itself: add its package to EXTERNAL in scripts/bundle-cli.mjs`,
          );
        }
        return undefined;
      }
      if (!source.includes('import.meta')) return undefined;
      // Host sources are bundled from src/*.ts; what runs installed is dist/*.js.
      let inPackage = relative(owner.root, args.path).split(sep).join('/');
      if (owner.name === manifest.name) {
        inPackage = inPackage.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js');
      }
      // The host's own files sit beside the bundle (dist/cli.js, dist/cli/*.js); another
      // package's files are found where that package is installed.
      const packageRoot =
        owner.name === manifest.name
          ? `new URL(/\\/dist\\/cli\\/[^/]*$/.test(import.meta.url) ? "../../" : "../", import.meta.url)`
          : `import.meta.resolve(${JSON.stringify(`${owner.name}/package.json`)})`;
      const url = `new URL(${JSON.stringify(inPackage)}, ${packageRoot}).href`;
      const contents = source.replace(/\bimport\.meta\.url\b/g, url);
      if (/\bimport\.meta\.(?!resolve\b)/.test(contents.replaceAll(url, ''))) {
        throw new Error(
          `${relative(HOST, args.path)} uses import.meta beyond .url: teach scripts/bundle-cli.mjs`,
        );
      }
      return { contents, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

/**
 * zod re-exports every locale's messages (~360 KB) as `z.locales`; nothing here reads them, and zod
 * configures English from its own module. The bundle keeps English only.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(context) {
    context.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';",
      loader: 'js',
    }));
  },
};

/** Every package left outside must be one the host depends on, or the bundle cannot find it. */
const declaredExternals = {
  name: 'declared-externals',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const name = externalName(args.path);
      if (!isExternal(name)) return undefined;
      if (!manifest.dependencies?.[name]) {
        throw new Error(
          `${name} stays outside the bundle, so @toolsys/host must depend on it: add it to apps/host/package.json`,
        );
      }
      return { path: args.path, external: true };
    });
  },
};

const analyze = process.argv.includes('--analyze');
rmSync(join(HOST, 'dist/cli'), { recursive: true, force: true });
const result = await build({
  absWorkingDir: HOST,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  chunkNames: 'cli/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Several dependencies ship a UMD build as `main` and an ES build as `module`.
  mainFields: ['module', 'main'],
  allowOverwrite: true,
  legalComments: 'linked',
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __toolsysCreateRequire } from 'node:module';\nconst require = __toolsysCreateRequire(import.meta.url);",
  },
  plugins: [declaredExternals, englishOnlyZod, ownFileUrls],
  metafile: true,
  logLevel: 'warning',
});

/** The package a bundled input came from. */
function packageOfInput(input) {
  const inModules = input.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const [scope, name] = input.slice(inModules + 'node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  return workspacePackageOf(join(HOST, input))?.name ?? manifest.name;
}

// Which packages each output file holds, so that a test can tell what a start loaded.
const contents = {};
for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
  if (!output.endsWith('.js')) continue;
  const packages = new Set(Object.keys(inputs).map(packageOfInput));
  contents[relative('dist', output).split(sep).join('/')] = [...packages].sort();
}
writeFileSync(
  join(HOST, 'dist/cli/bundle-contents.json'),
  `${JSON.stringify(contents, null, 1)}\n`,
);

if (analyze) {
  const inputs = Object.entries(result.metafile.inputs).sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [path, { bytes }] of inputs.slice(0, 40)) console.log(String(bytes).padStart(9), path);
  console.log(`${inputs.length} inputs`);
}
