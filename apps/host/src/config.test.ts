import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadDeploymentConfig, parseDeploymentConfig } from './config.js';
import { BUILTIN_PACKAGES } from './packages/index.js';

const withBuiltins = { packages: BUILTIN_PACKAGES };

const scratches: string[] = [];

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'toolsys-config-'));
  scratches.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of scratches.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('parseDeploymentConfig', () => {
  it('accepts every documented field', () => {
    const config = parseDeploymentConfig(
      {
        workspaceRoot: 'work',
        dataDir: 'data',
        permissions: { LOW: 'allow', MEDIUM: 'ask', HIGH: 'deny', alwaysAllow: ['write_file'] },
        packages: {
          core: { groups: { shell: false }, shell: { allowCommands: ['make'] } },
          'cs-mem': { databasePath: 'data/memory.db', recordTraces: false },
          'mcp-client': {
            servers: {
              memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
            },
            importConfig: '~/.config/Claude/claude_desktop_config.json',
          },
        },
        plugins: ['@acme/toolsys-weather'],
        tools: {
          mode: 'discover',
          include: ['category:file', 'browser_*', 'package:cs-mem'],
          exclude: ['delete_file'],
          disabled: ['web_search'],
          runPolicies: { web_fetch: { preset: 'network', timeoutMs: 5_000, ratePerMinute: null } },
        },
        server: { host: '127.0.0.1', port: 7821, tokenEnv: 'TOOLSYS_TOKEN' },
      },
      '<inline>',
      withBuiltins,
    );
    expect(config.packages?.['cs-mem']).toEqual({
      databasePath: 'data/memory.db',
      recordTraces: false,
    });
  });

  it('names the file and every field at fault', () => {
    expect(() =>
      parseDeploymentConfig(
        {
          permissions: { HIGH: 'sometimes' },
          server: { port: 'eighty' },
          packages: { 'cs-mem': { databasePath: 7 } },
        },
        '/etc/toolsys.config.json',
        withBuiltins,
      ),
    ).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        message: expect.stringMatching(
          /^\/etc\/toolsys\.config\.json is invalid:\n(?=[\s\S]* {2}permissions\.HIGH: )(?=[\s\S]* {2}server\.port: )(?=[\s\S]* {2}packages\.cs-mem\.databasePath: Invalid input: expected string)/,
        ),
      }),
    );
  });

  it('rejects an unknown run-policy field by name', () => {
    expect(() =>
      parseDeploymentConfig({ tools: { runPolicies: { web_fetch: { retries: 3 } } } }, 'c.json'),
    ).toThrow(
      /tools\.runPolicies\.web_fetch\.retries: unknown key "retries" \(did you mean "maxRetries"\?\)/,
    );
  });

  it('names a misspelled key and the closest valid one, at every level', () => {
    expect(() =>
      parseDeploymentConfig(
        {
          workspaceroot: '.',
          permisions: { LOW: 'allow' },
          packages: {
            core: { shell: { allowComands: ['make'] } },
            'cs-mem': { databasepath: 'm.db' },
          },
        },
        'c.json',
        withBuiltins,
      ),
    ).toThrow(
      [
        'c.json is invalid:',
        '  workspaceroot: unknown key "workspaceroot" (did you mean "workspaceRoot"?)',
        '  permisions: unknown key "permisions" (did you mean "permissions"?)',
        '  packages.core.shell.allowComands: unknown key "allowComands" (did you mean "allowCommands"?)',
        '  packages.cs-mem.databasepath: unknown key "databasepath" (did you mean "databasePath"?)',
      ].join('\n'),
    );
  });

  it('refuses an unknown package key unless a plugin may own it', () => {
    expect(() => parseDeploymentConfig({ packages: { 'cs-men': {} } }, 'c.json')).toThrow(
      '  packages.cs-men: unknown package "cs-men" (did you mean "cs-mem"?); a third-party package must also be named in `plugins`',
    );
    expect(
      parseDeploymentConfig({
        plugins: ['@acme/weather'],
        packages: { weather: { city: 'Oslo' } },
      }),
    ).toMatchObject({ packages: { weather: { city: 'Oslo' } } });
  });
});

describe('loadDeploymentConfig', () => {
  it('serves the embedded default when there is no file', () => {
    const directory = scratch();
    const loaded = loadDeploymentConfig({
      env: { INIT_CWD: directory, TOOLSYS_DATA_DIR: join(directory, 'data') },
    });
    expect(loaded).toMatchObject({
      config: {},
      file: undefined,
      workspaceRoot: directory,
      dataDir: join(directory, 'data'),
    });
  });

  it('resolves paths against the config file directory', () => {
    const directory = scratch();
    writeFileSync(
      join(directory, 'toolsys.config.json'),
      JSON.stringify({ workspaceRoot: 'work', dataDir: 'state' }),
    );
    const loaded = loadDeploymentConfig({ env: { INIT_CWD: directory } });
    expect(loaded).toMatchObject({
      file: join(directory, 'toolsys.config.json'),
      workspaceRoot: join(directory, 'work'),
      dataDir: join(directory, 'state'),
    });
  });

  it('names the file when it is not JSON', () => {
    const directory = scratch();
    const file = join(directory, 'toolsys.config.json');
    writeFileSync(file, '{ nope');
    expect(() => loadDeploymentConfig({ env: { INIT_CWD: directory } })).toThrow(ConfigError);
    expect(() => loadDeploymentConfig({ env: { INIT_CWD: directory } })).toThrow(
      `${file} is not valid JSON`,
    );
  });

  it('fails when an explicit config path does not exist', () => {
    const directory = scratch();
    expect(() =>
      loadDeploymentConfig({ path: 'missing.json', env: { INIT_CWD: directory } }),
    ).toThrow(`${join(directory, 'missing.json')} does not exist.`);
  });
});
