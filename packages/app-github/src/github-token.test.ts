import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveGitHubToken } from './github-token.js';

// Real child processes (node itself) stand in for `gh auth token`.
const NODE = process.execPath;
let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'github-token-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('resolveGitHubToken', () => {
  it('takes the first line a command prints, with no shell involved', async () => {
    const lookup = await resolveGitHubToken({
      tokenCommand: [NODE, '-e', 'console.log("ghp_abc123 $HOME"); console.log("x")'],
      env: {},
      configDir: directory,
    });
    // A shell would have expanded $HOME; the space makes it no token at all.
    expect(lookup).toEqual({
      found: false,
      reason: expect.stringContaining(`tokenCommand "${NODE}" printed no token`),
    });
  });

  it('splits a string command on whitespace', async () => {
    const script = join(directory, 'print.js');
    writeFileSync(script, 'console.log("gho_fromscript")');
    const lookup = await resolveGitHubToken({
      tokenCommand: `${NODE} ${script}`,
      env: {},
      configDir: directory,
    });
    expect(lookup).toEqual({
      found: true,
      token: { token: 'gho_fromscript', source: 'tokenCommand' },
      skipped: [],
    });
  });

  it('stops a command at its time limit and falls back', async () => {
    const lookup = await resolveGitHubToken({
      tokenCommand: [NODE, '-e', 'setTimeout(() => {}, 20000)'],
      commandTimeoutMs: 300,
      env: { GITHUB_TOKEN: 'ghp_env' },
      configDir: directory,
    });
    expect(lookup).toEqual({
      found: true,
      token: { token: 'ghp_env', source: 'GITHUB_TOKEN' },
      skipped: ['tokenCommand timed out after 300 ms'],
    });
  });

  it('names a command that does not exist', async () => {
    const lookup = await resolveGitHubToken({
      tokenCommand: 'no-such-gh-binary auth token',
      env: {},
      configDir: directory,
    });
    expect(lookup.found ? '' : lookup.reason).toContain(
      'tokenCommand "no-such-gh-binary" was not found',
    );
  });

  it('prefers GITHUB_TOKEN over GH_TOKEN over tokenFile', async () => {
    writeFileSync(join(directory, 't'), 'ghp_file\n');
    const base = { configDir: directory, tokenFile: 't' };
    expect(
      await resolveGitHubToken({ ...base, env: { GITHUB_TOKEN: 'ghp_a', GH_TOKEN: 'ghp_b' } }),
    ).toMatchObject({ token: { source: 'GITHUB_TOKEN' } });
    expect(await resolveGitHubToken({ ...base, env: { GH_TOKEN: 'ghp_b' } })).toMatchObject({
      token: { source: 'GH_TOKEN' },
    });
    expect(await resolveGitHubToken({ ...base, env: {} })).toMatchObject({
      token: { token: 'ghp_file', source: 'tokenFile' },
    });
  });

  it('names an unreadable tokenFile without its content', async () => {
    const lookup = await resolveGitHubToken({
      tokenFile: 'missing',
      env: {},
      configDir: directory,
    });
    expect(lookup.found ? '' : lookup.reason).toContain('tokenFile could not be read (ENOENT)');
  });
});
