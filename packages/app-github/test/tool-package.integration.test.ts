import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GitHubPackageConfig, toolPackage } from '../src/tool-package.js';
import { FakeGitHub } from './fake-github.js';
import { ALL_TOOL_IDS, errorOf, READ_TOOL_IDS } from './support.js';

let fake: FakeGitHub;
let directory: string;

beforeEach(async () => {
  fake = await new FakeGitHub().start();
  fake.addRepo('octocat/Hello-World');
  directory = mkdtempSync(join(tmpdir(), 'app-github-'));
});

afterEach(async () => {
  await fake.stop();
  expect(fake.violations).toEqual([]);
  rmSync(directory, { recursive: true, force: true });
});

function config(input: Record<string, unknown> = {}): GitHubPackageConfig {
  return toolPackage.configSchema.parse({ baseUrl: fake.baseUrl, ...input });
}

function environment(input: Record<string, unknown>, env: NodeJS.ProcessEnv) {
  return {
    config: config(input),
    env,
    workspaceRoot: directory,
    dataDir: directory,
    configDir: directory,
  };
}

async function create(
  input: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  mode: 'serve' | 'gate' = 'serve',
) {
  const registry = new ToolRegistry();
  return toolPackage.create({
    ...environment(input, env),
    registry,
    executor: createToolExecutor({ registry }),
    mode,
  });
}

const PATH_ONLY = { PATH: process.env.PATH ?? '' };

describe('detect', () => {
  it('is off without a token and says how to provide one', async () => {
    const status = await toolPackage.detect(environment({}, PATH_ONLY));
    expect(status.enabled).toBe(false);
    expect(status.reason).toContain('no GitHub token: set GITHUB_TOKEN or GH_TOKEN');
    expect(fake.requests).toHaveLength(0);
  });

  it('names the source and the token scopes, never the value', async () => {
    const status = await toolPackage.detect(
      environment({}, { ...PATH_ONLY, GITHUB_TOKEN: fake.token }),
    );
    expect(status).toEqual({
      enabled: true,
      reason: 'token from GITHUB_TOKEN; classic token with scopes repo, read:org',
    });
  });

  it('says why write tools are off for a classic token without write scopes', async () => {
    fake.scopes = 'read:org, gist';
    const status = await toolPackage.detect(
      environment({}, { ...PATH_ONLY, GH_TOKEN: fake.token }),
    );
    expect(status.reason).toBe(
      'token from GH_TOKEN; classic token with scopes read:org, gist: no repo or public_repo scope, so github_write_file and github_create_issue are off',
    );
  });

  it('says when GitHub rejects the token, without its value', async () => {
    const status = await toolPackage.detect(
      environment({}, { ...PATH_ONLY, GITHUB_TOKEN: 'ghp_expired0000000000000000' }),
    );
    expect(status).toEqual({
      enabled: true,
      reason:
        'token from GITHUB_TOKEN; GitHub rejected the token from GITHUB_TOKEN (401): renew it, every call will fail until then',
    });
  });

  it('prefers tokenCommand, run without a shell', async () => {
    const status = await toolPackage.detect(
      environment(
        {
          tokenCommand: [
            process.execPath,
            '-e',
            'console.log(process.env.FAKE_GITHUB_SECRET + "\\nsecond line")',
          ],
          readOnly: true,
        },
        { ...PATH_ONLY, FAKE_GITHUB_SECRET: fake.token, GITHUB_TOKEN: 'ghp_other' },
      ),
    );
    expect(status).toEqual({
      enabled: true,
      reason: 'token from tokenCommand; read-only: write tools off',
    });
  });

  it('falls back past a failing tokenCommand and says it was skipped', async () => {
    const status = await toolPackage.detect(
      environment(
        { tokenCommand: [process.execPath, '-e', 'process.exit(3)'], readOnly: true },
        { ...PATH_ONLY, GH_TOKEN: fake.token },
      ),
    );
    expect(status.reason).toBe(
      `token from GH_TOKEN; skipped: tokenCommand "${process.execPath}" failed (exit 3); read-only: write tools off`,
    );
  });

  it('reads tokenFile relative to the config directory, last', async () => {
    writeFileSync(join(directory, 'token.txt'), `${fake.token}\n`);
    const status = await toolPackage.detect(environment({ tokenFile: 'token.txt' }, PATH_ONLY));
    expect(status.reason).toBe('token from tokenFile; classic token with scopes repo, read:org');
    expect(status.reason).not.toContain(fake.token);
  });
});

describe('create', () => {
  const env = () => ({ ...PATH_ONLY, GITHUB_TOKEN: fake.token });

  it('registers all seven tools for a token with the repo scope', async () => {
    const contribution = await create({}, env());
    expect(contribution.tools.map((tool) => tool.id)).toEqual(ALL_TOOL_IDS);
    await contribution.dispose?.();
  });

  it('registers no write tool for a classic token without write scopes', async () => {
    fake.scopes = 'read:user';
    expect((await create({}, env())).tools.map((tool) => tool.id)).toEqual(READ_TOOL_IDS);
  });

  it('keeps the write tools for public_repo and for tokens without classic scopes', async () => {
    fake.scopes = 'public_repo';
    expect((await create({}, env())).tools).toHaveLength(7);
    fake.scopes = undefined;
    expect((await create({}, env())).tools).toHaveLength(7);
  });

  it('registers no write tool in read-only mode, and does not probe', async () => {
    expect((await create({ readOnly: true }, env())).tools.map((tool) => tool.id)).toEqual(
      READ_TOOL_IDS,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('lists every tool in gate mode without a token and without contacting anything', async () => {
    expect((await create({}, PATH_ONLY, 'gate')).tools.map((tool) => tool.id)).toEqual(
      ALL_TOOL_IDS,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('builds tools that honour allowedRepos', async () => {
    const contribution = await create({ allowedRepos: ['octocat/Hello-World'] }, env());
    const registry = new ToolRegistry();
    registry.registerAll(contribution.tools);
    const executor = createToolExecutor({ registry });
    const result = await executor.execute('github_list_issues', {
      owner: 'someone',
      repo: 'private-stuff',
    });
    expect(errorOf(result)?.code).toBe('PERMISSION_DENIED');
    expect(fake.requestsTo('GET', '/repos')).toHaveLength(0);
  });
});

describe('configSchema', () => {
  it('rejects unknown keys, so a misspelled option is an error', () => {
    const parsed = toolPackage.configSchema.safeParse({ readonly: true });
    expect(parsed.success).toBe(false);
  });

  it('rejects an allowedRepos entry without an owner', () => {
    const parsed = toolPackage.configSchema.safeParse({ allowedRepos: ['Hello-World'] });
    expect(parsed.success ? undefined : parsed.error.issues[0]?.message).toBe(
      'expected owner/name (the name not "." or "..")',
    );
  });

  it('rejects an allowedRepos entry naming "." or ".."', () => {
    for (const name of ['good-org/..', 'good-org/.']) {
      expect(toolPackage.configSchema.safeParse({ allowedRepos: [name] }).success).toBe(false);
    }
  });

  it('fills the defaults', () => {
    expect(toolPackage.configSchema.parse({})).toEqual({
      readOnly: false,
      maxFileBytes: 1_048_576,
      idleTimeoutMs: 20_000,
    });
  });
});
