import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExpectedOutput } from '../src/readme-examples.js';
import { copyWorkspace, versionOf, versionWithChangesets } from '../src/release-copy.js';
import {
  addRegistryUser,
  installVerdaccio,
  type RunningRegistry,
  startVerdaccio,
} from '../src/verdaccio.js';
import { listPublicPackages, repoRoot, type WorkspacePackage } from '../src/workspace.js';

// A real Verdaccio on 127.0.0.1 with its own storage: every public package is versioned with
// changesets in a throwaway copy of the workspace, published there with `pnpm -r publish`, and
// `@toolsys/host` is installed from it by npm into an empty folder, the way a user would. Only
// `@toolsys/*` comes from Verdaccio (a scoped registry in the folder's .npmrc); third-party
// packages come from the registry npm is configured with, and better-sqlite3 builds as it would
// for a user.

const execFileAsync = promisify(execFile);
const minute = 60_000;
const publicPackages = listPublicPackages();

let scratch: string;
let registry: RunningRegistry | undefined;
let copyPackages: WorkspacePackage[] = [];
let app: string;
let hostVersion: string;

/**
 * npm waits 5 minutes on a registry connection that stalls before it retries; a stalled one is
 * retried after 30 s instead, so that one lost connection does not eat the whole time limit.
 */
const PATIENT_FETCH = 'fetch-timeout=30000\nfetch-retries=5\nfetch-retry-mintimeout=2000\n';

/** Runs a command in the app folder with a time limit; resolves with stdout, rejects on failure. */
async function inApp(command: string, args: string[], timeoutMs = 2 * minute): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      cwd: app,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_yes: 'true' },
    });
    return stdout;
  } catch (error) {
    // Say why: killed at the time limit, or what the command printed.
    const { killed, stderr } = error as { killed?: boolean; stderr?: string };
    const why = killed ? `killed after ${timeoutMs / 1000} s` : String(stderr ?? '').slice(-2_000);
    throw new Error(`${command} ${args.join(' ')} failed: ${why}`, { cause: error });
  }
}

/** How long each step of the set-up took, printed once it is done. */
const timings: string[] = [];

/** Runs one set-up step and notes how long it took. */
async function step<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  timings.push(`${name} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-publish-'));
  const bin = await step('install Verdaccio', () =>
    installVerdaccio(join(import.meta.dirname, '..', 'node_modules', '.cache'), {
      timeoutMs: 5 * minute,
    }),
  );
  registry = await step('start Verdaccio', () =>
    startVerdaccio({ bin, workDir: join(scratch, 'registry'), readyTimeoutMs: minute }),
  );
  const token = await addRegistryUser(registry, 'publisher');

  const copy = join(scratch, 'release');
  await step('copy and version with changesets', () => {
    copyWorkspace(repoRoot, copy);
    versionWithChangesets(copy, { timeoutMs: 2 * minute });
  });
  copyPackages = listPublicPackages(copy);
  writeFileSync(
    join(copy, '.npmrc'),
    `${readFileSync(join(copy, '.npmrc'), 'utf8').trimEnd()}\n${registry.authKey}:_authToken=${token}\n`,
  );
  const url = registry.url;
  await step('pnpm -r publish', () =>
    execFileAsync('pnpm', ['-r', 'publish', '--registry', url, '--no-git-checks'], {
      cwd: copy,
      timeout: 3 * minute,
      killSignal: 'SIGKILL',
      maxBuffer: 16 * 1024 * 1024,
    }),
  );

  hostVersion = versionOf(join(copy, 'apps', 'host'));
  app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
  writeFileSync(join(app, '.npmrc'), `@toolsys:registry=${registry.url}\n${PATIENT_FETCH}`);
  await step('npm install @toolsys/host', () =>
    inApp(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', `@toolsys/host@${hostVersion}`],
      // better-sqlite3 compiles from source on a Node.js it has no prebuilt binary for (~4 min on 2 cores).
      10 * minute,
    ),
  );
  console.log(`publish test set-up: ${timings.join(', ')}`);
}, 16 * minute);

afterAll(async () => {
  await registry?.stop();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('versioning with changesets (in a throwaway copy)', () => {
  it('bumps every public package and writes its CHANGELOG.md', () => {
    expect(copyPackages.map((entry) => entry.name)).toEqual(
      publicPackages.map((entry) => entry.name),
    );
    for (const entry of copyPackages) {
      const original = publicPackages.find((candidate) => candidate.name === entry.name);
      const changelog = readFileSync(join(entry.dir, 'CHANGELOG.md'), 'utf8');
      expect(changelog.startsWith(`# ${entry.name}\n`), entry.name).toBe(true);
      expect(changelog).toContain(`\n## ${entry.manifest.version}\n`);
      expect(entry.manifest.version).not.toBe(original?.manifest.version);
    }
  });

  it('leaves the repository untouched', () => {
    for (const entry of publicPackages) {
      expect(versionOf(entry.dir)).toBe(entry.manifest.version);
    }
  });
});

describe('the local registry', () => {
  it('serves every public package at its new version, with its CHANGELOG and LICENSE', async () => {
    for (const entry of copyPackages) {
      const response = await fetch(`${registry?.url}${entry.name.replace('/', '%2f')}`);
      expect(response.status, entry.name).toBe(200);
      const packument = (await response.json()) as {
        'dist-tags': Record<string, string>;
        versions: Record<
          string,
          { dependencies?: Record<string, string>; dist: { tarball: string } }
        >;
      };
      expect(packument['dist-tags'].latest).toBe(entry.manifest.version);
      const published = packument.versions[entry.manifest.version];
      for (const range of Object.values(published?.dependencies ?? {})) {
        expect(range).not.toMatch(/^(workspace|catalog):/);
      }
      const tarball = await fetch(published?.dist.tarball ?? '');
      expect(tarball.status, entry.name).toBe(200);
      const file = join(scratch, `${entry.name.replace('/', '-')}.tgz`);
      writeFileSync(file, Buffer.from(await tarball.arrayBuffer()));
      const { stdout } = await execFileAsync('tar', ['-tzf', file]);
      expect(stdout.split('\n'), entry.name).toEqual(
        expect.arrayContaining(['package/LICENSE', 'package/CHANGELOG.md', 'package/package.json']),
      );
    }
  });

  it('refuses a publish without a token', async () => {
    const response = await fetch(`${registry?.url}@toolsys%2fintruder`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: '@toolsys/intruder', versions: {} }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'authorization required to publish package @toolsys/intruder',
    });
  });

  it('proxies nothing: third-party packages are not served by it', async () => {
    expect((await fetch(`${registry?.url}zod`)).status).toBe(404);
  });
});

describe('npm install @toolsys/host in an empty folder', () => {
  it('installs the host at the published version, with better-sqlite3 built and no tsx', () => {
    const host = JSON.parse(
      readFileSync(join(app, 'node_modules', '@toolsys', 'host', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(host.version).toBe(hostVersion);
    const sqlite = join(app, 'node_modules', 'better-sqlite3');
    expect(existsSync(join(sqlite, 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
  });

  it('lists the tools with `npx toolsys list`', async () => {
    const stdout = await inApp('npx', ['toolsys', 'list']);
    expect(stdout).toMatch(/^\s+calculate\s+LOW\s/m);
    expect(stdout).toMatch(/^\s+memory_search_nodes\s/m);
  });

  it('prints the version with `npx toolsys --version`', async () => {
    expect((await inApp('npx', ['toolsys', '--version'])).trim()).toBe(hostVersion);
  });

  it('prints the version with `npx -y @toolsys/host --version`', async () => {
    expect((await inApp('npx', ['-y', '@toolsys/host', '--version'])).trim()).toBe(hostVersion);
  });

  /** Connects an MCP client to `toolsys serve --stdio` of the installed host. */
  async function connectToInstalledHost(): Promise<Client> {
    const client = new Client({ name: 'publish-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: join(app, 'node_modules', '.bin', 'toolsys'),
      args: ['serve', '--stdio'],
      cwd: app,
      stderr: 'pipe',
    });
    try {
      await client.connect(transport, { timeout: minute });
    } catch (error) {
      await transport.close();
      throw error;
    }
    return client;
  }

  it('completes an MCP handshake with `toolsys serve --stdio`, lists tools and calls one', async () => {
    const client = await connectToInstalledHost();
    try {
      expect(client.getServerVersion()?.name).toBe('toolsys');
      const { tools } = await client.listTools(undefined, { timeout: minute });
      expect(tools.map((tool) => tool.name)).toContain('calculate');
      const result = await client.callTool(
        { name: 'calculate', arguments: { expression: '2+3*4' } },
        undefined,
        { timeout: minute },
      );
      expect(result.isError ?? false).toBe(false);
      expect(result.content).toEqual([{ type: 'text', text: '14' }]);
    } finally {
      await client.close();
    }
  });

  it('announces the package version in the MCP handshake', async () => {
    const client = await connectToInstalledHost();
    try {
      expect(client.getServerVersion()?.version).toBe(hostVersion);
    } finally {
      await client.close();
    }
  });
});

describe('npm install @toolsys/core-tool-registry alone in an empty folder', () => {
  // The kernel's README example: its own tool, the hardened pipeline with a policy, the OpenAI
  // adapter. Node 20 runs no TypeScript, so the example is transpiled (types stripped) first.
  const exampleSource = readFileSync(
    join(repoRoot, 'packages', 'core-tool-registry', 'examples', 'quick-start.ts'),
    'utf8',
  );
  let kernelApp: string;

  beforeAll(async () => {
    if (registry === undefined) throw new Error('the local registry did not start');
    const kernel = copyPackages.find((entry) => entry.name === '@toolsys/core-tool-registry');
    if (kernel === undefined) throw new Error('the kernel was not published');
    kernelApp = join(scratch, 'kernel-app');
    mkdirSync(kernelApp);
    writeFileSync(join(kernelApp, 'package.json'), '{ "name": "kernel-app", "private": true }\n');
    writeFileSync(join(kernelApp, '.npmrc'), `@toolsys:registry=${registry.url}\n${PATIENT_FETCH}`);
    const { outputText } = ts.transpileModule(exampleSource, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(kernelApp, 'example.mjs'), outputText);
    await execFileAsync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `@toolsys/core-tool-registry@${versionOf(kernel.dir)}`,
      ],
      { cwd: kernelApp, timeout: 3 * minute, killSignal: 'SIGKILL' },
    );
  }, 4 * minute);

  it('installs the kernel with zod and fastest-levenshtein only', () => {
    const installed = readdirSync(join(kernelApp, 'node_modules')).filter(
      (name) => !name.startsWith('.'),
    );
    expect(installed.sort()).toEqual(['@toolsys', 'fastest-levenshtein', 'zod']);
    expect(readdirSync(join(kernelApp, 'node_modules', '@toolsys'))).toEqual([
      'core-tool-registry',
    ]);
  });

  it('runs its own tool through the pipeline and the OpenAI adapter', async () => {
    const { stdout } = await execFileAsync('node', ['example.mjs'], {
      cwd: kernelApp,
      timeout: minute,
      killSignal: 'SIGKILL',
    });
    expect(stdout.trimEnd().split('\n')).toEqual(parseExpectedOutput(exampleSource));
  });
});
