// The deployment serve.mjs composes: a config naming the fixture plugin, linked beside it, with
// its own data directory and workspace, all in a new temp folder the caller removes.
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixture');

/** The fixture plugin's npm name. */
export const FIXTURE_NAME = '@toolsys/conformance-fixture';

/** Packages left off: the scenarios need the fixture, and the core package is always on. */
const OFF = [
  'mcp-client',
  'cs-mem',
  'platform-terminal',
  'app-github',
  'platform-android',
  'app-browser',
];

/**
 * Writes `toolsys.config.json` (data and workspace directories, the fixture in `plugins`, the
 * other packages off) and links the fixture into `node_modules` beside it, under a new temp
 * folder whose name starts with `toolsys-conformance-`. Resolves with the folder and the file.
 */
export async function prepareFixtureConfig() {
  const base = await mkdtemp(join(tmpdir(), 'toolsys-conformance-'));
  await mkdir(join(base, 'workspace'));
  await mkdir(join(base, 'node_modules', '@toolsys'), { recursive: true });
  // Plugins are installed beside the config file: the fixture is linked there.
  await symlink(FIXTURE, join(base, 'node_modules', FIXTURE_NAME), 'dir');
  const config = {
    dataDir: './data',
    workspaceRoot: './workspace',
    plugins: [FIXTURE_NAME],
    packages: Object.fromEntries(OFF.map((key) => [key, { enabled: false }])),
  };
  const file = join(base, 'toolsys.config.json');
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return { base, file };
}
