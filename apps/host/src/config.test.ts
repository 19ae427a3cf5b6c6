import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadDeploymentConfig, parseDeploymentConfig } from './config.js';

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
    const config = parseDeploymentConfig({
      workspaceRoot: 'work',
      dataDir: 'data',
      permissions: { LOW: 'allow', MEDIUM: 'ask', HIGH: 'deny', alwaysAllow: ['write_file'] },
      packages: {
        core: { groups: { shell: false } },
        browser: { enabled: true, headless: false },
        'cs-mem': { databasePath: 'data/memory.db' },
        'mcp-client': {
          servers: {
            memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
          },
          importConfig: '~/.config/Claude/claude_desktop_config.json',
        },
      },
      tools: {
        disabled: ['web_search'],
        runPolicies: { web_fetch: { preset: 'network', timeoutMs: 5_000, ratePerMinute: null } },
      },
      browser: { executablePath: '/usr/bin/chromium' },
      android: { serial: 'emulator-5554', appiumUrl: 'http://127.0.0.1:4723' },
      github: { token: { env: 'GITHUB_TOKEN' } },
      server: { host: '127.0.0.1', port: 7821, tokenEnv: 'TOOLSYS_TOKEN' },
    });
    expect(config.packages?.browser).toEqual({ enabled: true, headless: false });
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
    ).toThrow(/tools\.runPolicies\.web_fetch: Unrecognized key: "retries"/);
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
