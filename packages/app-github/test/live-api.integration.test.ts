/**
 * Opt-in: the read tools against the real GitHub API (api.github.com, or GITHUB_API_URL for GitHub
 * Enterprise Server) when GITHUB_TOKEN is set. Skipped otherwise: the rest of the suite runs
 * against a local server in GitHub's shapes, which cannot prove the real API still answers so.
 * Reads only public data of octocat/Hello-World; writes nothing.
 */
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { GitHubClient } from '../src/github-client.js';
import { createGitHubTools } from '../src/tools/index.js';
import { dataOf } from './support.js';

const token = process.env.GITHUB_TOKEN;
const liveTitle = token
  ? 'the real GitHub API'
  : 'the real GitHub API (skipped: set GITHUB_TOKEN to run these against api.github.com)';

describe.skipIf(!token)(liveTitle, () => {
  const client = new GitHubClient({
    token: async () => ({ token: token ?? '', source: 'GITHUB_TOKEN' }),
    ...(process.env.GITHUB_API_URL ? { baseUrl: process.env.GITHUB_API_URL } : {}),
  });
  const registry = new ToolRegistry();
  registry.registerAll(createGitHubTools({ client, readOnly: true }));
  const executor = createToolExecutor({ registry });
  const call = (id: string, args: Record<string, unknown> = {}) => executor.execute(id, args);

  it('gets the token owner', { timeout: 30_000 }, async () => {
    expect(dataOf<{ login: string }>(await call('github_get_user')).login).toMatch(/\S/);
  });

  it('reads a public file, then revalidates it with a 304', { timeout: 30_000 }, async () => {
    const args = { owner: 'octocat', repo: 'Hello-World', path: 'README' };
    const first = dataOf<{ kind: string; sha: string }>(await call('github_read_file', args));
    expect(first).toMatchObject({ kind: 'text', sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    await call('github_read_file', args);
    expect(client.stats.notModified).toBeGreaterThanOrEqual(1);
  });

  it('lists issues without pull requests and pages with a cursor', {
    timeout: 30_000,
  }, async () => {
    const first = dataOf<{ issues: { isPullRequest: boolean }[]; nextCursor?: string }>(
      await call('github_list_issues', {
        owner: 'octocat',
        repo: 'Hello-World',
        perPage: 5,
        state: 'all',
      }),
    );
    expect(first.issues.every((issue) => !issue.isPullRequest)).toBe(true);
    if (first.nextCursor) {
      const second = await call('github_list_issues', {
        owner: 'octocat',
        repo: 'Hello-World',
        perPage: 5,
        state: 'all',
        cursor: first.nextCursor,
      });
      expect(second.ok).toBe(true);
    }
  });

  it('lists the token owner repositories and searches code', { timeout: 60_000 }, async () => {
    expect((await call('github_list_repos', { perPage: 5 })).ok).toBe(true);
    const search = await call('github_search_code', {
      query: 'Hello',
      repo: 'octocat/Hello-World',
    });
    expect(search.ok).toBe(true);
  });
});
