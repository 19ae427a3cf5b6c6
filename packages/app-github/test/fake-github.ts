/**
 * A local HTTP server on 127.0.0.1 answering in the shapes of GitHub's REST API (bodies built from
 * the fixtures in ./fixtures, headers as GitHub sends them: rate limits, ETags, Link, OAuth scopes).
 * It keeps real state (files with git blob shas, issues), checks the token on every request, and
 * can be told to fail the next matching requests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  authenticatedUser,
  codeSearchItem,
  contentFile,
  errors,
  fileCommit,
  issue as issueFixture,
  organisationUser,
  repository as repositoryFixture,
  simpleUser,
} from './fixtures/github-responses.js';
import { checkRequest, checkResponse } from './openapi-validator.js';

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  status: number;
}

/** An answer the server gives instead of the real one, to the next `times` matching requests. */
export interface InjectedFault {
  method?: string;
  /** The path must start with this. */
  pathPrefix: string;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** How many requests it answers. Default 1. */
  times?: number;
  /** Waits this long before answering (a slow or hanging GitHub). */
  delayMs?: number;
}

interface FakeFile {
  content: Buffer;
  sha: string;
}

interface FakeRepo {
  owner: string;
  name: string;
  private: boolean;
  description: string | null;
  files: Map<string, FakeFile>;
  issues: FakeIssue[];
}

/** An issue (or pull request) held by the server. */
export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  labels: string[];
  assignee?: string;
  author: string;
  authorAssociation: string;
  isPullRequest: boolean;
  updatedAt: string;
}

const RATE_LIMIT = 5000;

/** The git blob sha of some bytes, as GitHub computes it. */
export function blobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** The fake server. Start it with {@link FakeGitHub.start}, stop it in afterEach/afterAll. */
export class FakeGitHub {
  /** The only token the server accepts. */
  readonly token = `ghp_${randomBytes(18).toString('hex')}`;
  /** The `X-OAuth-Scopes` header of every answer; undefined sends none (fine-grained token). */
  scopes: string | undefined = 'repo, read:org';
  /** Every request seen, in order. */
  readonly requests: SeenRequest[] = [];
  /**
   * Requests or answers that do not follow GitHub's OpenAPI description (see openapi-validator.ts);
   * every test expects none.
   */
  readonly violations: string[] = [];
  /** Requests answered 304 Not Modified (they do not use the rate limit). */
  notModified = 0;
  /** Primary rate limit left. */
  remaining = RATE_LIMIT;
  readonly resetEpochSeconds = Math.floor(Date.now() / 1000) + 3600;
  readonly #repos = new Map<string, FakeRepo>();
  readonly #faults: InjectedFault[] = [];
  #server: Server | undefined;
  #baseUrl = '';
  #nextIssue = 1;

  /** The API root, e.g. `http://127.0.0.1:PORT/api/v3`. */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** Adds a repository (the fixture's shape with this owner and name). */
  addRepo(
    fullName: string,
    options: { private?: boolean; description?: string | null } = {},
  ): void {
    const [owner = '', name = ''] = fullName.split('/');
    this.#repos.set(fullName.toLowerCase(), {
      owner,
      name,
      private: options.private ?? false,
      description:
        options.description === undefined ? repositoryFixture.description : options.description,
      files: new Map(),
      issues: [],
    });
  }

  /** Puts a file into a repository (as if pushed); returns its blob sha. */
  putFile(fullName: string, path: string, content: string | Buffer): string {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const sha = blobSha(bytes);
    this.#repo(fullName).files.set(path, { content: bytes, sha });
    return sha;
  }

  /** The current bytes of a file, or undefined. */
  file(fullName: string, path: string): Buffer | undefined {
    return this.#repo(fullName).files.get(path)?.content;
  }

  /** Adds an issue or pull request; numbers count up from 1 across repositories. */
  addIssue(fullName: string, issue: Partial<FakeIssue> & { title: string }): FakeIssue {
    const full: FakeIssue = {
      number: this.#nextIssue++,
      body: null,
      state: 'open',
      labels: [],
      author: 'octocat',
      authorAssociation: 'OWNER',
      isPullRequest: false,
      updatedAt: '2026-11-20T10:00:00Z',
      ...issue,
    };
    this.#repo(fullName).issues.push(full);
    return full;
  }

  /** The issues of a repository, oldest first. */
  issues(fullName: string): readonly FakeIssue[] {
    return this.#repo(fullName).issues;
  }

  /** Answers the next matching requests with this fault instead. */
  inject(fault: InjectedFault): void {
    this.#faults.push({ ...fault, times: fault.times ?? 1 });
  }

  /** Requests whose path starts with a prefix. */
  requestsTo(method: string, pathPrefix: string): SeenRequest[] {
    return this.requests.filter(
      (request) => request.method === method && request.path.startsWith(pathPrefix),
    );
  }

  /** Starts listening on 127.0.0.1 on a free port. */
  async start(): Promise<this> {
    const server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: String(error) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
    return this;
  }

  /** Stops the server and closes open connections. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #repo(fullName: string): FakeRepo {
    const repo = this.#repos.get(fullName.toLowerCase());
    if (!repo) throw new Error(`no repository ${fullName} in the fake`);
    return repo;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = url.pathname.replace(/^\/api\/v3/, '');
    const seen: SeenRequest = {
      method: request.method ?? 'GET',
      path,
      query: url.searchParams,
      headers: request.headers,
      body,
      status: 0,
    };
    this.requests.push(seen);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      seen.status = status;
      this.#send(request, response, status, payload, headers);
    };
    this.violations.push(...checkRequest(seen.method, path, url.searchParams, body));
    const auth = request.headers.authorization ?? '';
    if (auth !== `token ${this.token}` && auth !== `bearer ${this.token}`) {
      return answer(401, errors.badCredentials);
    }
    const fault = this.#faults.find(
      (candidate) =>
        (candidate.method === undefined || candidate.method === seen.method) &&
        path.startsWith(candidate.pathPrefix) &&
        (candidate.times ?? 0) > 0,
    );
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.delayMs) {
        // The wait ends early when the client gives up, so no timer outlives the test.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, fault.delayMs);
          response.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      if (response.destroyed) return;
      return answer(fault.status, fault.body ?? {}, fault.headers ?? {});
    }
    const [status, payload, headers] = this.#route(seen, url);
    this.violations.push(
      ...checkResponse(seen.method, path, status, JSON.parse(JSON.stringify(payload)) as unknown),
    );
    answer(status, payload, headers);
  }

  #route(seen: SeenRequest, url: URL): [number, unknown, Record<string, string>?] {
    const { method, path } = seen;
    if (method === 'GET' && path === '/user') return [200, authenticatedUser];
    let match = /^\/users\/([^/]+)$/.exec(path);
    if (method === 'GET' && match) {
      const login = decodeURIComponent(match[1] ?? '');
      if (login.toLowerCase() === 'github') return [200, organisationUser];
      if (login.toLowerCase() === 'octocat') return [200, authenticatedUser];
      return [404, errors.notFound];
    }
    if (method === 'GET' && path === '/user/repos') {
      const visibility = url.searchParams.get('visibility') ?? 'all';
      const repos = [...this.#repos.values()].filter(
        (repo) => visibility === 'all' || (visibility === 'private') === repo.private,
      );
      return this.#page(
        url,
        repos.map((repo) => this.#repoBody(repo)),
      );
    }
    if (method === 'GET' && path === '/search/code') return this.#searchCode(url);
    match = /^\/repos\/([^/]+)\/([^/]+)\/(contents|issues|git\/blobs)(?:\/(.*))?$/.exec(path);
    if (!match) return [404, errors.notFound];
    const repo = this.#repos.get(`${match[1]}/${match[2]}`.toLowerCase());
    if (!repo) return [404, errors.notFound];
    const rest = decodeURIComponent(match[4] ?? '');
    switch (`${method} ${match[3]}`) {
      case 'GET contents':
        return this.#getContent(repo, rest);
      case 'PUT contents':
        return this.#putContent(repo, rest, seen.body);
      case 'GET issues':
        return this.#listIssues(repo, url);
      case 'POST issues':
        return this.#createIssue(repo, seen.body);
      case 'GET git/blobs': {
        const file = [...repo.files.values()].find((candidate) => candidate.sha === rest);
        if (!file) return [404, errors.notFound];
        return [
          200,
          {
            sha: file.sha,
            node_id: 'B_1',
            size: file.content.length,
            url: '',
            content: file.content.toString('base64'),
            encoding: 'base64',
          },
        ];
      }
      default:
        return [404, errors.notFound];
    }
  }

  #repoBody(repo: FakeRepo): unknown {
    const fullName = `${repo.owner}/${repo.name}`;
    return {
      ...repositoryFixture,
      name: repo.name,
      full_name: fullName,
      owner: { ...simpleUser, login: repo.owner },
      private: repo.private,
      visibility: repo.private ? 'private' : 'public',
      description: repo.description,
      html_url: `https://github.com/${fullName}`,
      url: `https://api.github.com/repos/${fullName}`,
    };
  }

  #getContent(repo: FakeRepo, path: string): [number, unknown] {
    const fullName = `${repo.owner}/${repo.name}`;
    const file = repo.files.get(path);
    if (file) {
      const inline = file.content.length <= 1024 * 1024;
      return [
        200,
        {
          ...contentFile,
          name: path.split('/').at(-1),
          path,
          sha: file.sha,
          size: file.content.length,
          // GitHub wraps base64 at 60 columns; files over 1 MB come back without content.
          content: inline
            ? (file.content.toString('base64').match(/.{1,60}/g) ?? []).join('\n')
            : '',
          encoding: inline ? 'base64' : 'none',
          html_url: `https://github.com/${fullName}/blob/master/${path}`,
        },
      ];
    }
    const prefix = path === '' ? '' : `${path}/`;
    const entries = new Map<string, { type: string; size: number; sha: string }>();
    for (const [filePath, entry] of repo.files) {
      if (!filePath.startsWith(prefix)) continue;
      const [head = '', ...tail] = filePath.slice(prefix.length).split('/');
      entries.set(
        head,
        tail.length > 0
          ? { type: 'dir', size: 0, sha: blobSha(Buffer.from(head)) }
          : { type: 'file', size: entry.content.length, sha: entry.sha },
      );
    }
    if (entries.size === 0) return [404, errors.notFound];
    return [
      200,
      [...entries].map(([name, entry]) => ({
        ...contentFile,
        ...entry,
        name,
        path: `${prefix}${name}`,
        content: undefined,
        encoding: undefined,
      })),
    ];
  }

  #putContent(repo: FakeRepo, path: string, text: string): [number, unknown] {
    const body = JSON.parse(text) as {
      message?: unknown;
      content?: unknown;
      sha?: unknown;
      branch?: unknown;
    };
    if (typeof body.message !== 'string' || typeof body.content !== 'string') {
      return [
        422,
        { message: 'Invalid request.\n\n"message", "content" are required.', status: '422' },
      ];
    }
    const current = repo.files.get(path);
    if (current && body.sha === undefined) return [422, errors.shaNotSupplied];
    if (current && body.sha !== current.sha) {
      return [
        409,
        {
          message: `${path} does not match ${String(body.sha)}`,
          documentation_url:
            'https://docs.github.com/rest/repos/contents#create-or-update-file-contents',
          status: '409',
        },
      ];
    }
    const content = Buffer.from(body.content, 'base64');
    const sha = blobSha(content);
    repo.files.set(path, { content, sha });
    const commitSha = createHash('sha1').update(`${path}${sha}${body.message}`).digest('hex');
    return [
      current ? 200 : 201,
      {
        content: {
          ...fileCommit.content,
          name: path.split('/').at(-1),
          path,
          sha,
          size: content.length,
        },
        commit: { ...fileCommit.commit, sha: commitSha, message: body.message },
      },
    ];
  }

  #listIssues(repo: FakeRepo, url: URL): [number, unknown, Record<string, string>?] {
    const state = url.searchParams.get('state') ?? 'open';
    const labels = url.searchParams.get('labels')?.split(',').filter(Boolean) ?? [];
    const assignee = url.searchParams.get('assignee');
    const since = url.searchParams.get('since');
    const issues = repo.issues
      .filter((issue) => state === 'all' || issue.state === state)
      .filter((issue) => labels.every((label) => issue.labels.includes(label)))
      .filter((issue) => !assignee || issue.assignee === assignee)
      .filter((issue) => !since || issue.updatedAt >= since)
      .slice()
      .reverse();
    const fullName = `${repo.owner}/${repo.name}`;
    return this.#page(
      url,
      issues.map((issue) => ({
        ...issueFixture,
        id: issue.number,
        number: issue.number,
        title: issue.title,
        body: issue.body,
        state: issue.state,
        user: { ...simpleUser, login: issue.author },
        author_association: issue.authorAssociation,
        labels: issue.labels.map((name) => ({ ...issueFixture.labels[0], name })),
        updated_at: issue.updatedAt,
        html_url: `https://github.com/${fullName}/${issue.isPullRequest ? 'pull' : 'issues'}/${issue.number}`,
        ...(issue.isPullRequest
          ? {
              pull_request: {
                url: `https://api.github.com/repos/${fullName}/pulls/${issue.number}`,
                html_url: null,
                diff_url: null,
                patch_url: null,
              },
            }
          : {}),
      })),
    );
  }

  #createIssue(repo: FakeRepo, text: string): [number, unknown] {
    const body = JSON.parse(text) as { title?: unknown; body?: unknown; labels?: unknown };
    if (typeof body.title !== 'string' || body.title === '') {
      return [
        422,
        {
          message: 'Validation Failed',
          errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }],
          status: '422',
        },
      ];
    }
    const created = this.addIssue(`${repo.owner}/${repo.name}`, {
      title: body.title,
      body: typeof body.body === 'string' ? body.body : null,
      labels: Array.isArray(body.labels) ? body.labels.map(String) : [],
    });
    const fullName = `${repo.owner}/${repo.name}`;
    return [
      201,
      {
        ...issueFixture,
        number: created.number,
        title: created.title,
        body: created.body,
        html_url: `https://github.com/${fullName}/issues/${created.number}`,
      },
    ];
  }

  #searchCode(url: URL): [number, unknown, Record<string, string>?] {
    const q = url.searchParams.get('q') ?? '';
    const terms = q.split(/\s+/).filter(Boolean);
    const scopes = terms.filter((term) => /^(repo|org|user):/.test(term));
    const words = terms.filter((term) => !/^(repo|org|user):/.test(term));
    const inScope = (repo: FakeRepo) =>
      scopes.length === 0 ||
      scopes.some((scope) => {
        const [kind, value = ''] = scope.split(':');
        return kind === 'repo'
          ? `${repo.owner}/${repo.name}`.toLowerCase() === value.toLowerCase()
          : repo.owner.toLowerCase() === value.toLowerCase();
      });
    const items: unknown[] = [];
    for (const repo of this.#repos.values()) {
      if (!inScope(repo)) continue;
      for (const [path, file] of repo.files) {
        const text = file.content.toString('utf8');
        const word = words.find((candidate) => text.includes(candidate));
        if (!word || !words.every((candidate) => text.includes(candidate))) continue;
        const at = text.indexOf(word);
        const fragment = text.slice(Math.max(0, at - 40), at + word.length + 40);
        items.push({
          ...codeSearchItem,
          name: path.split('/').at(-1),
          path,
          sha: file.sha,
          html_url: `https://github.com/${repo.owner}/${repo.name}/blob/master/${path}`,
          repository: this.#repoBody(repo),
          text_matches: [
            {
              ...codeSearchItem.text_matches[0],
              fragment,
              matches: [{ text: word, indices: [0, word.length] }],
            },
          ],
        });
      }
    }
    const [status, page, headers] = this.#page(url, items);
    return [status, { total_count: items.length, incomplete_results: false, items: page }, headers];
  }

  #page(url: URL, all: unknown[]): [number, unknown[], Record<string, string>] {
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const links: string[] = [];
    const link = (n: number, rel: string) => {
      const next = new URL(url);
      next.searchParams.set('page', String(n));
      links.push(
        `<${this.#baseUrl}${next.pathname.replace(/^\/api\/v3/, '')}${next.search}>; rel="${rel}"`,
      );
    };
    if (page < last) {
      link(page + 1, 'next');
      link(last, 'last');
    }
    if (page > 1) {
      link(1, 'first');
      link(page - 1, 'prev');
    }
    return [
      200,
      all.slice((page - 1) * perPage, page * perPage),
      links.length > 0 ? { link: links.join(', ') } : {},
    ];
  }

  #send(
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    payload: unknown,
    extra: Record<string, string>,
  ): void {
    const text = JSON.stringify(payload);
    const etag = `W/"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`;
    const conditional =
      request.method === 'GET' && status === 200 && request.headers['if-none-match'] === etag;
    if (!conditional && !('x-ratelimit-remaining' in extra))
      this.remaining = Math.max(0, this.remaining - 1);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'x-github-media-type': 'github.v3; format=json',
      'x-ratelimit-limit': String(RATE_LIMIT),
      'x-ratelimit-remaining': String(this.remaining),
      'x-ratelimit-reset': String(this.resetEpochSeconds),
      'x-ratelimit-used': String(RATE_LIMIT - this.remaining),
      'x-ratelimit-resource': 'core',
      ...(this.scopes === undefined
        ? {}
        : { 'x-oauth-scopes': this.scopes, 'x-accepted-oauth-scopes': '' }),
      ...extra,
    };
    if (conditional) {
      this.notModified += 1;
      response.writeHead(304, { ...headers, etag });
      response.end();
      return;
    }
    if (request.method === 'GET' && status === 200) headers.etag = etag;
    response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
    response.end(text);
  }
}
