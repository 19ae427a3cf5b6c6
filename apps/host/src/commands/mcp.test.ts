import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir, removeTempDir } from '@toolsys/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli-main.js';
import { findOpener, openBrowser } from './open-browser.js';

let dir: string;
beforeEach(async () => {
  dir = await createTempDir('host-mcp-cli-');
});
afterEach(async () => {
  await removeTempDir(dir);
});

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    interactive: false,
  });
  return { code, stdout, stderr };
}

function writeConfig(servers: Record<string, unknown>): string {
  const file = join(dir, 'toolsys.config.json');
  writeFileSync(
    file,
    JSON.stringify({
      workspaceRoot: '.',
      dataDir: './data',
      packages: { 'mcp-client': { servers } },
    }),
  );
  return file;
}

describe('toolsys mcp', () => {
  it('answers a missing or unknown action, or a missing server, as usage errors', async () => {
    const config = writeConfig({});
    expect((await run(['mcp', '--config', config])).stderr).toContain('Name an action: login');
    expect((await run(['mcp', 'sign', '--config', config])).code).toBe(2);
    const missing = await run(['mcp', 'login', '--config', config]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('toolsys mcp login needs a server name.');
  });

  it('names the configured servers for an unknown one, and refuses to sign in to a program', async () => {
    const config = writeConfig({ local: { command: 'node', args: ['server.js'] } });
    const unknown = await run(['mcp', 'logout', 'remote', '--config', config]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No configured MCP server named "remote". Configured: local.');
    const program = await run(['mcp', 'login', 'local', '--config', config]);
    expect(program.code).toBe(2);
    expect(program.stderr).toContain('is a local program: it needs no sign-in');
  });

  it('shows every server with its sign-in and pins, and never a token', async () => {
    const config = writeConfig({ remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    const status = await run(['mcp', 'status', '--config', config]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('remote  http http://127.0.0.1:9/mcp');
    expect(status.stdout).toContain('no sign-in stored');
    expect(status.stdout).toContain('not pinned');
    const diff = await run(['mcp', 'diff', 'remote', '--config', config]);
    expect(diff.stdout).toContain('MCP server "remote" has no quarantined tools.');
  });
});

describe('openBrowser', () => {
  it('runs the opener found on PATH with the URL as its one argument, no shell', () => {
    const opener = join(dir, 'xdg-open');
    const seen = join(dir, 'seen');
    writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$#" "$1" > '${seen}'\n`);
    chmodSync(opener, 0o755);
    const env = { PATH: dir };
    expect(findOpener(env, 'linux')).toBe(opener);
    const url = 'https://issuer.example/auth?a=1&b=$(touch x);c';
    expect(openBrowser(url, env)).toBe(true);
    return expect
      .poll(() => {
        try {
          return readFileSync(seen, 'utf8');
        } catch {
          return '';
        }
      })
      .toBe(`1\n${url}\n`);
  });

  it('opens nothing that is not a web page, and nothing without an opener', () => {
    expect(findOpener({ PATH: dir }, 'linux')).toBeUndefined();
    expect(openBrowser('https://issuer.example/auth', { PATH: dir })).toBe(false);
    expect(openBrowser('file:///etc/passwd', { PATH: '/usr/bin:/bin' })).toBe(false);
  });
});
