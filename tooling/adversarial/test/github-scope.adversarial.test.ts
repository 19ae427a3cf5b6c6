import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../../../packages/app-github/test/fake-github.js';
import { contentFile } from '../../../packages/app-github/test/fixtures/github-responses.js';
import { type Connected, connect, text } from '../../../packages/app-github/test/support.js';

// A prompt-injected model confined to `allowedOwners: ["good-org"]` tries to leave the scope
// through the names it passes (dot segments, encoded slashes, odd refs), and a GitHub API (or a
// proxy, or a GitHub Enterprise Server) answers with a redirect to another repository. The tools
// talk to a local server answering in GitHub's REST shapes.

let fake: FakeGitHub;
let github: Connected;

beforeEach(async () => {
  fake = await new FakeGitHub().start();
  fake.addRepo('good-org/app');
  fake.putFile('good-org/app', 'README.md', 'good readme\n');
  fake.addRepo('evil-org/secrets', { private: true });
  fake.putFile('evil-org/secrets', 'token.txt', 'SECRET-OF-ANOTHER-REPOSITORY\n');
  github = connect(fake, { scope: { allowedOwners: ['good-org'] } });
});

afterEach(async () => {
  await fake.stop();
});

describe('names that would leave the allowed repositories', () => {
  const attempts: Array<[string, Record<string, unknown>]> = [
    ['github_read_file', { owner: 'good-org', repo: '..', path: 'README.md' }],
    ['github_read_file', { owner: 'good-org', repo: '.', path: 'README.md' }],
    ['github_read_file', { owner: 'good-org', repo: '..', path: '../evil-org/secrets/contents' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: 'a/%2e%2e/%2E%2E/x' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: '..%2f..%2fevil-org' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: 'a\\..\\..\\b' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: 'a//b' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: 'a/\u0000b' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: 'README.md', ref: '../../x' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: 'README.md', ref: 'a\nb' }],
    ['github_read_file', { owner: 'good-org', repo: 'app', path: 'README.md', ref: 'a@{1}' }],
    ['github_list_issues', { owner: 'good-org', repo: '..' }],
    ['github_create_issue', { owner: 'good-org', repo: '..', title: 'x' }],
    [
      'github_write_file',
      { owner: 'good-org', repo: '..', path: 'a.txt', content: 'x', message: 'm' },
    ],
    [
      'github_write_file',
      { owner: 'good-org', repo: 'app', path: 'a.txt', content: 'x', message: 'm', branch: '..' },
    ],
    ['github_search_code', { query: 'x', repo: 'good-org/..' }],
  ];

  it.each(attempts)('%s %j is refused before any request', async (tool, args) => {
    const result = await github.call(tool, args);
    expect(result.ok, text(result)).toBe(false);
    expect(result.ok ? undefined : result.error.code).toBe('INVALID_ARGUMENT');
    expect(fake.requests).toEqual([]);
  });

  it('still reads ordinary names: dotted repositories, nested paths, slashed branches', async () => {
    fake.addRepo('good-org/my.site');
    fake.putFile('good-org/my.site', 'docs/.well-known/a.txt', 'ok\n');
    const result = await github.call('github_read_file', {
      owner: 'good-org',
      repo: 'my.site',
      path: 'docs/.well-known/a.txt',
      ref: 'feature/x-1.2',
    });
    expect(result.ok, text(result)).toBe(true);
    expect(fake.requests.map((request) => decodeURIComponent(request.path))).toEqual([
      '/repos/good-org/my.site/contents/docs/.well-known/a.txt',
    ]);
  });
});

describe('a redirect to another repository', () => {
  // GitHub answers a renamed or transferred repository with 301 to `/repositories/{id}/…`; the
  // same answer from a hostile GitHub Enterprise Server or proxy points at any repository.
  function redirectGoodRepositoryToSecrets(status = 301): void {
    fake.inject({
      pathPrefix: '/repos/good-org/app/contents/README.md',
      status,
      headers: { location: `${fake.baseUrl}/repositories/666/contents/token.txt` },
      body: {
        message: 'Moved Permanently',
        url: `${fake.baseUrl}/repositories/666/contents/token.txt`,
        documentation_url: 'https://docs.github.com/v3/#http-redirects',
      },
    });
    const secret = Buffer.from('SECRET-OF-ANOTHER-REPOSITORY\n');
    fake.inject({
      pathPrefix: '/repositories/666/',
      status: 200,
      body: {
        ...contentFile,
        name: 'token.txt',
        path: 'token.txt',
        size: secret.length,
        content: secret.toString('base64'),
        html_url: 'https://github.com/evil-org/secrets/blob/main/token.txt',
      },
    });
  }

  for (const status of [301, 302, 307, 308]) {
    it(`is not followed (${status}) and the result says where it pointed`, async () => {
      redirectGoodRepositoryToSecrets(status);
      const result = await github.call('github_read_file', {
        owner: 'good-org',
        repo: 'app',
        path: 'README.md',
      });
      const rendered = text(result);
      expect(rendered).not.toContain('SECRET-OF-ANOTHER-REPOSITORY');
      expect(result.ok).toBe(false);
      expect(result.ok ? undefined : result.error.code).toBe('NOT_FOUND');
      expect(rendered).toContain(`${status}`);
      expect(rendered).toContain('/repositories/666/contents/token.txt');
      expect(fake.requestsTo('GET', '/repositories/')).toEqual([]);
    });
  }

  it('is not followed for listings either', async () => {
    fake.inject({
      pathPrefix: '/repos/good-org/app/issues',
      status: 301,
      headers: { location: `${fake.baseUrl}/repos/evil-org/secrets/issues` },
      body: { message: 'Moved Permanently' },
    });
    const result = await github.call('github_list_issues', { owner: 'good-org', repo: 'app' });
    expect(result.ok).toBe(false);
    expect(fake.requestsTo('GET', '/repos/evil-org/')).toEqual([]);
  });
});
