import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ENTRY = new URL('../dist/index.js', import.meta.url);
const REFUSE_OCTOKIT = fileURLToPath(new URL('./fixtures/refuse-octokit.mjs', import.meta.url));

/**
 * Runs in a fresh Node process where no @octokit package can be resolved: imports the built entry,
 * then calls a GitHub tool, which is the first use that builds the client. Prints one JSON line.
 */
const CHILD = `
const entry = await import(process.env.ENTRY_URL);
const { createToolExecutor, ToolRegistry, renderResult } = await import('@toolsys/core-tool-registry');
const client = new entry.GitHubClient({
  token: async () => ({ token: 'ghp_child0000000000000000000000000000000', source: 'GITHUB_TOKEN' }),
  baseUrl: 'http://127.0.0.1:9',
});
const registry = new ToolRegistry();
registry.registerAll(entry.createGitHubTools({ client }));
const executor = createToolExecutor({ registry });
const first = await executor.execute('github_get_user', {});
const second = await executor.execute('github_get_user', {});
console.log(JSON.stringify({
  exports: Object.keys(entry).sort(),
  first: { code: first.ok ? 'OK' : first.error.code, text: renderResult(first) },
  second: { code: second.ok ? 'OK' : second.error.code },
}));
`;

interface ChildReport {
  exports: string[];
  first: { code: string; text: string };
  second: { code: string };
}

let report: ChildReport;
let stderr = '';

beforeAll(async () => {
  if (!existsSync(ENTRY)) throw new Error('dist/index.js is missing: run `pnpm build` first.');
  const child = spawn(
    process.execPath,
    ['--import', REFUSE_OCTOKIT, '--input-type=module', '--eval', CHILD],
    {
      // Resolve @toolsys/core-tool-registry from this package, as a user of the entry would.
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, ENTRY_URL: ENTRY.href },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (exitCode !== 0) throw new Error(`the child exited with ${exitCode}:\n${stderr}`);
  report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ChildReport;
}, 60_000);

describe('the package entry', () => {
  it('imports without loading any @octokit package', () => {
    // The child got this far only because no @octokit package was resolved during the import.
    expect(report.exports).toEqual(
      expect.arrayContaining(['toolPackage', 'createGitHubTools', 'GitHubClient']),
    );
    expect(stderr).not.toContain('refused to load');
  });

  it('loads Octokit on the first tool call, and a failed load is an UNSUPPORTED result without host paths', () => {
    // The first call is where Octokit is imported: the refusal proves the hook sees that import.
    expect(report.first.code).toBe('UNSUPPORTED');
    expect(report.first.text).toContain(
      'GitHub is not available: the Octokit packages it needs (@octokit/rest, @octokit/plugin-throttling) could not be loaded',
    );
    expect(report.first.text).toContain('reinstall @toolsys/app-github');
    expect(report.first.text).not.toContain('file://');
    expect(report.first.text).not.toContain('refused to load');
    expect(report.first.text).not.toContain('ghp_child');
    // A failed load is not remembered: the next call tries again (and fails the same way here).
    expect(report.second.code).toBe('UNSUPPORTED');
  });
});
